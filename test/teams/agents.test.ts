// The agents' write API (shared/teams/agents.ts): what its writes leave in the table.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setClock } from '../../shared/clock.ts';
import { getItem } from '../../shared/db/store.ts';
import { addTask, updateTask } from '../../shared/teams/agents.ts';
import { teamKeys } from '../../shared/teams/keys.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { createTeam } from './fixtures.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  setClock(undefined);
  await h.close();
});

describe('updateTask', () => {
  it('moves a rescheduled task on the schedule index, and takes an unscheduled one off it', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const team = await createTeam(h);
    const task = await addTask(team.id, {
      task_type: 'social_post',
      title: 'Carousel',
      platform: 'instagram',
      scheduled_for: '2026-11-18T09:00:00Z',
    });
    const calendar = async (start: string) => {
      const res = await h.call('POST', `/api/v1/teams/${team.id}/calendar/generate?start=${start}`);
      assert.equal(res.status, 200);
      return res.body.entries.map((e: { id: string; scheduled_for: string }) => [e.id, e.scheduled_for]);
    };
    const stored = () => getItem<Record<string, unknown>>(teamKeys.task(team.id, task.id));
    assert.deepEqual(await calendar('2026-11-16'), [[task.id, '2026-11-18T09:00:00.000Z']]);

    await updateTask(team.id, task.id, { scheduled_for: '2026-11-25T09:00:00Z' });
    assert.deepEqual(await stored().then((item) => [item?.gsi1pk, item?.gsi1sk]), [
      teamKeys.schedulePartition(team.id),
      `2026-11-25T09:00:00.000Z#${task.id}`,
    ]);
    assert.deepEqual(await calendar('2026-11-16'), []);
    assert.deepEqual(await calendar('2026-11-23'), [[task.id, '2026-11-25T09:00:00.000Z']]);

    await updateTask(team.id, task.id, { scheduled_for: null });
    const unscheduled = await stored();
    assert.equal(unscheduled?.scheduled_for, null);
    assert.ok(!('gsi1pk' in unscheduled!) && !('gsi1sk' in unscheduled!), 'off the sparse index');
    assert.deepEqual(await calendar('2026-11-23'), []);

    // A change that does not touch the schedule keeps the task where it is.
    await updateTask(team.id, task.id, { scheduled_for: '2026-11-26T09:00:00Z' });
    await updateTask(team.id, task.id, { status: 'in_review' });
    assert.equal((await stored())?.gsi1sk, `2026-11-26T09:00:00.000Z#${task.id}`);
  });
});
