// Teams built through the real endpoint and the agents' write API, for the team tests.
import assert from 'node:assert/strict';
import {
  addActivity,
  addBrief,
  addCycle,
  addMember,
  addTask,
  setCanvasLayout,
} from '../../shared/teams/agents.ts';
import type { Harness } from '../support/harness.ts';

export const TEAM_BODY = {
  team_type: 'content',
  display_name: 'Test team',
  tier: 'growth',
  operation_mode: 'autopilot',
} as const;

export async function createTeam(h: Harness, extra: Record<string, unknown> = {}, token = h.owner.token) {
  const res = await h.call('POST', '/api/v1/teams', { json: { ...TEAM_BODY, ...extra }, token });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string } & Record<string, unknown>;
}

/** A team with members, tasks, activity, cycles, briefs and a canvas. */
export async function createBusyTeam(h: Harness, sizes = { tasks: 12, activity: 14 }) {
  const team = await createTeam(h, {
    content_cadence: [
      {
        platform: 'instagram',
        task_type: 'social_post',
        per_week: 2,
        preferred_days: ['tuesday', 'thursday'],
      },
    ],
  });
  const writer = await addMember(team.id, {
    role: 'writer',
    agent_slug: 'social-writer',
    display_name: 'Writer',
    persona_name: 'Leo',
    capabilities: ['social_post', 'instagram'],
  });
  await addMember(team.id, {
    role: 'producer',
    agent_slug: 'video-producer',
    display_name: 'Producer',
    persona_name: 'Sam',
    capabilities: ['short_video', 'tiktok'],
    agent_classes: ['producer'],
    current_activity: { state: 'editing' },
  });
  // In parallel: the ids are taken in call order, so the list order is the loop's.
  const tasks = await Promise.all(
    Array.from({ length: sizes.tasks }, (_, i) =>
      addTask(team.id, {
        task_type: 'social_post',
        title: `Task ${i}`,
        platform: 'instagram',
        status: i % 2 ? 'completed' : 'pending',
        assigned_member_id: writer.id,
      }),
    ),
  );
  await Promise.all(
    Array.from({ length: sizes.activity }, (_, i) =>
      addActivity(team.id, {
        action_type: 'task_created',
        description: `Activity ${i}`,
        team_task_id: tasks[0]?.id,
      }),
    ),
  );
  const cycle = await addCycle(team.id, {
    start_date: '2026-10-01T00:00:00Z',
    end_date: '2026-10-15T00:00:00Z',
    strategy_status: 'completed',
    content_strategy: { focus: 'autumn' },
  });
  await addCycle(team.id, { start_date: '2026-10-15T00:00:00Z', end_date: '2026-10-29T00:00:00Z' });
  await addBrief(team.id, { cycle_instance_id: cycle.cycle_instance_id, content: 'Short brief.' });
  await addBrief(team.id, {
    cycle_instance_id: cycle.cycle_instance_id,
    content: `${'word '.repeat(100)}end`,
  });
  await setCanvasLayout(team.id, { nodes: [{ id: writer.id, x: 1, y: 2 }] });
  return { team, writer, tasks };
}
