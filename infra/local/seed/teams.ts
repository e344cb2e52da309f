// The demo content team (seed.json `team_id`) and the avatar-video team (`avatar_team_id`), written
// through the team domain's own write API. Times are relative to the first start, so "today" has
// loop instances running, upcoming and completed, and the current cycle is a few days in.

import { now } from '../../../shared/clock.ts';
import { updateItem } from '../../../shared/db/store.ts';
import {
  addActivity,
  addBrief,
  addCycle,
  addLoopInstance,
  addMember,
  addTask,
  setCanvasLayout,
  updateTeam,
} from '../../../shared/teams/agents.ts';
import { loopId, teamKeys } from '../../../shared/teams/keys.ts';
import { AVATAR_VIDEO_TEAM_TYPE, CONTENT_TEAM_TYPE } from '../../../shared/teams/schemas.ts';
import { createTeam } from '../../../shared/teams/store.ts';
import { addDays, localDate, startOfDay } from '../../../shared/teams/time.ts';
import type { Seeder, SeedIds } from './index.ts';

const TIME_ZONE = 'America/New_York';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

const MEMBERS = [
  {
    role: 'strategist',
    agent_slug: 'content-strategist',
    display_name: 'Strategy lead',
    persona_name: 'Maya Ortiz',
    capabilities: ['strategy_brief', 'blog_post', 'blog', 'newsletter', 'email'],
    agent_classes: ['planner'],
  },
  {
    role: 'writer',
    agent_slug: 'social-writer',
    display_name: 'Social writer',
    persona_name: 'Leo Park',
    capabilities: ['social_post', 'instagram', 'linkedin', 'x'],
    agent_classes: ['writer'],
  },
  {
    role: 'writer',
    agent_slug: 'social-writer',
    display_name: 'Social writer',
    persona_name: 'Ana Silva',
    capabilities: ['social_post', 'instagram', 'tiktok', 'x'],
    agent_classes: ['writer'],
  },
  {
    role: 'producer',
    agent_slug: 'video-producer',
    display_name: 'Video producer',
    persona_name: 'Sam Reed',
    capabilities: ['short_video', 'tiktok', 'instagram', 'youtube'],
    agent_classes: ['producer', 'editor'],
  },
];

const KINDS = [
  { task_type: 'social_post', platform: 'instagram', member: 1 },
  { task_type: 'social_post', platform: 'linkedin', member: 1 },
  { task_type: 'social_post', platform: 'x', member: 2 },
  { task_type: 'short_video', platform: 'tiktok', member: 3 },
  { task_type: 'blog_post', platform: 'blog', member: 0 },
  { task_type: 'newsletter', platform: 'email', member: 0 },
] as const;

const STATUSES = ['published', 'published', 'completed', 'scheduled', 'in_review', 'in_progress', 'pending'];

export const seedTeams: Seeder = async ({ owner }, seeded = {}): Promise<SeedIds> => {
  const at = now().getTime();
  const today = localDate(at, TIME_ZONE);
  const dayStart = startOfDay(today, TIME_ZONE);
  const dayEnd = startOfDay(addDays(today, 1), TIME_ZONE);

  const team = await createTeam(owner, {
    team_type: CONTENT_TEAM_TYPE,
    display_name: 'Trail Co. content team',
    tier: 'growth',
    operation_mode: 'autopilot',
    brand_id: seeded.brand_id ?? null,
    brand_kit_id: seeded.brand_kit_id ?? null,
    content_strategy: { pillars: ['trail guides', 'gear care', 'community stories'], tone: 'warm, expert' },
    orchestrator_cadence: { planning: 'weekly', review: 'daily', publish_window: '08:00-20:00' },
    config: { timezone: TIME_ZONE, approval_required: true },
    content_cadence: [
      {
        platform: 'instagram',
        task_type: 'social_post',
        per_week: 3,
        preferred_days: ['monday', 'wednesday', 'friday'],
        preferred_times: ['09:30'],
        title: null,
      },
      {
        platform: 'linkedin',
        task_type: 'social_post',
        per_week: 2,
        preferred_days: ['tuesday', 'thursday'],
        preferred_times: ['11:00'],
        title: 'LinkedIn insight post',
      },
      {
        platform: 'tiktok',
        task_type: 'short_video',
        per_week: 2,
        preferred_days: ['wednesday', 'saturday'],
        preferred_times: ['18:00'],
        title: null,
      },
      {
        platform: 'blog',
        task_type: 'blog_post',
        per_week: 1,
        preferred_days: ['thursday'],
        preferred_times: ['08:00'],
        title: 'Weekly trail guide',
      },
    ],
  });
  const teamId = team.id;
  const hired = at - 40 * DAY;
  // The demo team was hired 40 days ago (its cycles and tasks go back about as far): made then too,
  // so its calendar plans slots from then and its past weeks can be asked for. The API makes a team
  // now; only the seed writes the time.
  await updateItem(teamKeys.team(teamId), { set: { created_at: iso(hired) } });
  await updateTeam(teamId, {
    hired_at: iso(hired),
    payments_subscription_id: 'sub_demo_trailco',
    workflow_phase: 'production',
    workflow_phase_label: 'Producing Content',
    onboarding_step: 'completed',
    connected_accounts: ['instagram', 'linkedin', 'tiktok'],
  });

  const members = [];
  for (const member of MEMBERS)
    members.push(
      await addMember(teamId, {
        ...member,
        current_activity: { state: 'idle', since: iso(at - HOUR) },
      }),
    );

  // Three strategy cycles of 14 days: two done, the current one four days in.
  const currentStart = startOfDay(addDays(today, -4), TIME_ZONE);
  const cycles = [];
  for (const [i, offset] of [-28, -14, 0].entries()) {
    const start = currentStart + offset * DAY;
    cycles.push(
      await addCycle(teamId, {
        start_date: iso(start),
        end_date: iso(start + 14 * DAY),
        strategy_status: offset === 0 ? 'active' : 'completed',
        strategy_revision_count: i,
        content_strategy: { focus: ['spring launch', 'trail safety', 'community month'][i] },
        phases: [
          { name: 'research', start_day: 1 },
          { name: 'production', start_day: 3 },
          { name: 'publishing', start_day: 8 },
          { name: 'review', start_day: 13 },
        ],
      }),
    );
    await addBrief(teamId, {
      cycle_instance_id: cycles[i]!.cycle_instance_id,
      content: `Cycle ${i + 1} brief: focus on ${cycles[i]!.content_strategy.focus}. Lead with field-tested advice, one community story per week, and short videos that show the gear in use. Keep captions under 150 words and end each post with a question.`,
      created_at: iso(start),
    });
  }

  // 63 tasks over six weeks, in several statuses and platforms; some scheduled this week and next.
  const tasks = [];
  for (let i = 0; i < 63; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const status = STATUSES[i % STATUSES.length]!;
    const created = at - (63 - i) * 16 * HOUR;
    const scheduled =
      status === 'pending' || status === 'in_progress'
        ? null
        : created + (status === 'scheduled' ? 4 : 2) * DAY;
    const finished = status === 'published' || status === 'completed';
    tasks.push(
      await addTask(teamId, {
        task_type: kind.task_type,
        platform: kind.platform,
        title: `${kind.task_type.replace('_', ' ')} #${i + 1} for ${kind.platform}`,
        description: 'Drafted from the current strategy brief.',
        status,
        priority: ['high', 'medium', 'low'][i % 3],
        scheduled_for: scheduled === null ? null : iso(scheduled),
        started_at: status === 'pending' ? null : iso(created + HOUR),
        completed_at: finished ? iso(created + 6 * HOUR) : null,
        published_at: status === 'published' ? iso(scheduled ?? created) : null,
        publish_url: status === 'published' ? `https://social.example/${kind.platform}/posts/${i + 1}` : null,
        quality_score: finished ? 70 + (i % 30) : null,
        revision_count: i % 3,
        created_at: iso(created),
        assigned_member_id: members[kind.member]!.id,
        input_data: { brief: 'current' },
        output_data: finished ? { words: 120 + i } : {},
      }),
    );
  }

  const actions = [
    'task_created',
    'task_completed',
    'task_published',
    'review_requested',
    'strategy_updated',
  ];
  for (let i = 0; i < 30; i++)
    await addActivity(teamId, {
      action_type: actions[i % actions.length]!,
      description: `${actions[i % actions.length]!.replace('_', ' ')}: ${tasks[i * 2]!.title}`,
      source: i % 4 === 0 ? 'orchestrator' : 'agent',
      severity: i % 9 === 0 ? 'warning' : 'info',
      member_id: members[i % members.length]!.id,
      team_task_id: tasks[i * 2]!.id,
      created_at: iso(at - (30 - i) * 5 * HOUR),
    });

  // Today's loop instances: some done, some running, some still to come (all in today's window).
  const current = cycles[2]!;
  const elapsed = at - dayStart;
  const remaining = dayEnd - at;
  const loops = [
    { share: 0.1, status: 'completed', signals: ['brief_ready'] },
    { share: 0.3, status: 'completed', signals: ['draft_ready', 'review_passed'] },
    { share: 0.6, status: 'running', signals: [] },
    { share: 0.9, status: 'running', signals: [] },
  ];
  for (const [i, loop] of loops.entries()) {
    const scheduledAt = dayStart + elapsed * loop.share;
    await addLoopInstance(teamId, {
      loop_id: loopId(i % 2 === 0 ? 'social' : 'video'),
      cycle_instance_id: current.cycle_instance_id,
      occurrence_day: 5,
      scheduled_at: iso(scheduledAt),
      status: loop.status,
      task_id: tasks[50 + i]!.id,
      started_at: iso(scheduledAt),
      completed_at: loop.status === 'completed' ? iso(scheduledAt + (at - scheduledAt) / 2) : null,
      signals_emitted: loop.signals,
    });
  }
  for (const [i, share] of [0.2, 0.5, 0.8].entries())
    await addLoopInstance(teamId, {
      loop_id: loopId('social'),
      cycle_instance_id: current.cycle_instance_id,
      occurrence_day: 5,
      scheduled_at: iso(at + remaining * share),
      status: 'scheduled',
      task_id: tasks[55 + i]!.id,
      publish_at: iso(at + remaining * share + HOUR / 2),
    });

  await setCanvasLayout(teamId, {
    nodes: members.map((member, i) => ({
      id: member.id,
      x: 120 + i * 220,
      y: 80,
      label: member.persona_name,
    })),
    edges: [
      { from: members[0]!.id, to: members[1]!.id },
      { from: members[0]!.id, to: members[3]!.id },
    ],
    zoom: 1,
  });

  // The avatar-video team; the avatars seeder enables studio training on the owner's account.
  const avatarTeam = await createTeam(owner, {
    team_type: AVATAR_VIDEO_TEAM_TYPE,
    display_name: 'Trail Co. studio avatar team',
    tier: 'studio',
    operation_mode: 'assisted',
    brand_id: seeded.brand_id ?? null,
    brand_kit_id: null,
    content_strategy: {},
    orchestrator_cadence: {},
    config: { timezone: TIME_ZONE },
    content_cadence: [],
  });
  return { team_id: teamId, avatar_team_id: avatarTeam.id };
};
