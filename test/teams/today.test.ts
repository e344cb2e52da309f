import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setClock } from '../../shared/clock.ts';
import { RESPONSE_BODY_MAX_BYTES, sentBytes } from '../../shared/lambda-response.ts';
import {
  addCycle,
  addLoopInstance,
  addLoopInstances,
  addTask,
  addTasks,
  type LoopInstanceItem,
  updateLoopInstance,
  updateTask,
} from '../../shared/teams/agents.ts';
import { loopId } from '../../shared/teams/keys.ts';
import type { TeamItem } from '../../shared/teams/store.ts';
import { buildTodayView } from '../../shared/teams/today.ts';
import { dynamoRequestsOf, type RecordedRequest, recordDynamoRequests } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { clearFaults, intercept } from '../support/sdk-faults.ts';
import { createTeam } from './fixtures.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  setClock(undefined);
  await h.close();
});

// 10:30 UTC on 20 November 2026: 23:30 on the 20th in Auckland (UTC+13), 02:30 on the 20th in
// Los Angeles (UTC−8). Auckland's day began at 11:00 UTC on the 19th, Los Angeles' at 08:00 UTC on the 20th.
const NOW = '2026-11-20T10:30:00.000Z';

type Loop = { id: string; loop_id: string };
// Loops are named here; their ids are the UUIDs of those names.
const names = new Map<string, string>();
const ids = (loops: Loop[]) => loops.map((loop) => names.get(loop.loop_id) ?? loop.loop_id);

/** The same loop instances in a team of each time zone. */
async function teamIn(timeZone: string, withCycle = true) {
  setClock(new Date('2026-11-01T00:00:00Z'));
  const team = await createTeam(h, { config: { timezone: timeZone } });
  const task = await addTask(team.id, {
    task_type: 'social_post',
    title: 'Launch reel',
    platform: 'instagram',
    status: 'in_progress',
    scheduled_for: '2026-11-21T09:00:00Z',
  });
  let cycleId = '0193a0a0-0000-7000-8000-000000000000';
  if (withCycle) {
    // Starts at Auckland's midnight of the 18th (15:00 on the 17th in Los Angeles), lasts 10 days.
    const cycle = await addCycle(team.id, {
      start_date: '2026-11-17T11:00:00Z',
      end_date: '2026-11-27T11:00:00Z',
      phases: [
        { name: 'research', start_day: 1 },
        { name: 'production', start_day: 3 },
        { name: 'publishing', start_day: 4 },
      ],
    });
    cycleId = cycle.cycle_instance_id;
  }
  const loop = (name: string, scheduled_at: string, extra: Record<string, unknown> = {}) => {
    names.set(loopId(name), name);
    return addLoopInstance(team.id, {
      loop_id: loopId(name),
      cycle_instance_id: cycleId,
      occurrence_day: 3,
      scheduled_at,
      ...extra,
    });
  };
  // Tomorrow in Auckland, today in Los Angeles.
  await loop('A-upcoming', '2026-11-20T11:30:00Z', { task_id: task.id });
  // Today in Auckland, yesterday in Los Angeles.
  await loop('B-upcoming', '2026-11-19T11:30:00Z');
  // Completed today in both.
  await loop('C-done', '2026-11-20T09:00:00Z', {
    status: 'completed',
    started_at: '2026-11-20T09:00:00Z',
    completed_at: '2026-11-20T10:00:00Z',
    signals_emitted: ['draft_ready'],
  });
  // Completed at 20:00 on the 20th in Auckland, 23:00 on the 19th in Los Angeles.
  await loop('D-done', '2026-11-20T06:00:00Z', {
    status: 'completed',
    started_at: '2026-11-20T06:00:00Z',
    completed_at: '2026-11-20T07:00:00Z',
    signals_emitted: ['published', 'metrics_requested'],
  });
  // Started yesterday in both zones, still running.
  await loop('E-running', '2026-11-19T09:00:00Z', { status: 'running', started_at: '2026-11-19T09:00:00Z' });
  // Started long ago and still running: running whenever it was scheduled (the view left it out when
  // it read only the instances scheduled yesterday or today).
  await loop('F-old', '2026-11-10T09:00:00Z', { status: 'running', started_at: '2026-11-10T09:00:00Z' });
  setClock(new Date(NOW));
  return { team, task };
}

describe('today view', () => {
  it('buckets loop instances by the team’s day in Pacific/Auckland', async () => {
    const { team } = await teamIn('Pacific/Auckland');
    const res = await h.call('GET', `/api/v1/teams/${team.id}/today`);
    assert.equal(res.status, 200);
    const view = res.body;
    assert.equal(view.cycle_day, 3); // the 18th, 19th, 20th
    assert.equal(view.cycle_progress, 0.2979); // 71.5 h of 240 h
    assert.equal(view.current_phase, 'production');
    assert.deepEqual(ids(view.upcoming), ['B-upcoming']);
    assert.deepEqual(ids(view.running), ['F-old', 'E-running']);
    assert.deepEqual(ids(view.completed_today), ['D-done', 'C-done']);
    assert.deepEqual(view.signals_fired, [
      {
        signal: 'published',
        fired_at: '2026-11-20T07:00:00.000Z',
        loop_instance_id: view.completed_today[0].id,
        loop_id: loopId('D-done'),
      },
      {
        signal: 'metrics_requested',
        fired_at: '2026-11-20T07:00:00.000Z',
        loop_instance_id: view.completed_today[0].id,
        loop_id: loopId('D-done'),
      },
      {
        signal: 'draft_ready',
        fired_at: '2026-11-20T10:00:00.000Z',
        loop_instance_id: view.completed_today[1].id,
        loop_id: loopId('C-done'),
      },
    ]);
  });

  it('buckets the same instances by the team’s day in America/Los_Angeles', async () => {
    const { team } = await teamIn('America/Los_Angeles');
    const view = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    assert.equal(view.cycle_day, 4); // the 17th … 20th
    assert.equal(view.cycle_progress, 0.2979);
    assert.equal(view.current_phase, 'publishing');
    assert.deepEqual(ids(view.upcoming), ['A-upcoming']);
    assert.deepEqual(ids(view.running), ['F-old', 'E-running']);
    assert.deepEqual(ids(view.completed_today), ['C-done']);
    assert.deepEqual(
      view.signals_fired.map((s: { signal: string }) => s.signal),
      ['draft_ready'],
    );
  });

  it('joins the task fields onto the loop instance, and keeps them in step with the task', async () => {
    const { team, task } = await teamIn('America/Los_Angeles');
    await updateTask(team.id, task.id, { status: 'completed', title: 'Launch reel v2' });
    const [instance] = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body.upcoming;
    assert.deepEqual(instance, {
      id: instance.id,
      loop_id: loopId('A-upcoming'),
      cycle_instance_id: instance.cycle_instance_id,
      occurrence_day: 3,
      status: 'scheduled',
      task_status: 'completed',
      task_title: 'Launch reel v2',
      task_platform: 'instagram',
      scheduled_at: '2026-11-20T11:30:00.000Z',
      publish_at: null,
      started_at: null,
      completed_at: null,
      created_at: '2026-11-01T00:00:00.000Z',
      task_scheduled_for: '2026-11-21T09:00:00.000Z',
      signals_emitted: [],
    });
  });

  it('has no cycle day, progress 0 and no phase without an active cycle', async () => {
    const { team } = await teamIn('UTC', false);
    const view = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    assert.deepEqual([view.cycle_day, view.cycle_progress, view.current_phase], [null, 0, null]);
    // The loops are still reported.
    assert.deepEqual(ids(view.running), ['F-old', 'E-running']);
  });

  it('a cycle that has ended or is not active is not current', async () => {
    setClock(new Date('2026-11-01T00:00:00Z'));
    const team = await createTeam(h);
    await addCycle(team.id, { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-08T00:00:00Z' });
    setClock(new Date('2026-11-08T00:00:00Z'));
    const ended = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    assert.deepEqual([ended.cycle_day, ended.cycle_progress, ended.current_phase], [null, 0, null]);
    await addCycle(team.id, {
      start_date: '2026-11-08T00:00:00Z',
      end_date: '2026-11-15T00:00:00Z',
      strategy_status: 'draft',
    });
    const draft = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    assert.equal(draft.cycle_day, null);
    setClock(new Date('2026-11-07T23:59:59Z'));
    const team2 = await createTeam(h, { config: { timezone: 'Asia/Tokyo' } });
    await addCycle(team2.id, { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-08T00:00:00Z' });
    const last = (await h.call('GET', `/api/v1/teams/${team2.id}/today`)).body;
    // Without phases the team's workflow phase is reported; 00:00 UTC on the 1st is 09:00 in Tokyo, so
    // the cycle's last second is on the 8th there: still day 7 of 7 (it read day 8), and its progress
    // not yet 1 (it read 1, rounded).
    assert.deepEqual([last.cycle_day, last.cycle_progress, last.current_phase], [7, 0.9999, 'onboarding']);
  });

  it('the next cycle, added ahead of time, does not hide the current one', async () => {
    setClock(new Date('2026-11-03T12:00:00Z'));
    const team = await createTeam(h);
    await addCycle(team.id, { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-08T00:00:00Z' });
    await addCycle(team.id, {
      start_date: '2026-11-08T00:00:00Z',
      end_date: '2026-11-15T00:00:00Z',
      strategy_status: 'planned',
    });
    const view = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    // It showed no cycle (null, 0, null): only the newest, not yet begun, was looked at.
    assert.deepEqual([view.cycle_day, view.cycle_progress], [3, 0.3571]);
    // Once the next one is active and has begun, it is current.
    setClock(new Date('2026-11-09T12:00:00Z'));
    await addCycle(team.id, { start_date: '2026-11-09T00:00:00Z', end_date: '2026-11-16T00:00:00Z' });
    const next = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    assert.equal(next.cycle_day, 1);
  });

  it('cycles planned further ahead do not hide the current one, and the highest-numbered active cycle is current', async () => {
    setClock(new Date('2026-11-03T12:00:00Z'));
    const team = await createTeam(h);
    await addCycle(team.id, {
      start_date: '2026-11-01T00:00:00Z',
      end_date: '2026-11-08T00:00:00Z',
      phases: [
        { name: 'research', start_day: 1 },
        { name: 'production', start_day: 3 },
      ],
    });
    // Two cycles added ahead of time, active but not begun: the two newest by number.
    await addCycle(team.id, { start_date: '2026-11-08T00:00:00Z', end_date: '2026-11-15T00:00:00Z' });
    await addCycle(team.id, { start_date: '2026-11-15T00:00:00Z', end_date: '2026-11-22T00:00:00Z' });
    const view = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    // It showed no cycle (null, 0, null) while strategy-history listed the first one active.
    assert.deepEqual([view.cycle_day, view.cycle_progress, view.current_phase], [3, 0.3571, 'production']);
    // A fourth, active now and begun after the first (the two overlap): of the cycles active now, the
    // one with the highest number is current.
    await addCycle(team.id, { start_date: '2026-11-02T00:00:00Z', end_date: '2026-11-09T00:00:00Z' });
    await addCycle(team.id, { start_date: '2026-11-22T00:00:00Z', end_date: '2026-11-29T00:00:00Z' });
    await addCycle(team.id, { start_date: '2026-11-29T00:00:00Z', end_date: '2026-12-06T00:00:00Z' });
    const overlapping = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    assert.deepEqual(
      [overlapping.cycle_day, overlapping.cycle_progress, overlapping.current_phase],
      [2, 0.2142, 'onboarding'],
    );
  });

  it("a cycle's phases given out of order: the current phase is the latest begun by today", async () => {
    setClock(new Date('2026-11-03T12:00:00Z'));
    const team = await createTeam(h);
    await addCycle(team.id, {
      start_date: '2026-11-01T00:00:00Z',
      end_date: '2026-11-15T00:00:00Z',
      phases: [
        { name: 'publishing', start_day: 8 },
        { name: 'production', start_day: 3 },
        { name: 'research', start_day: 1 },
      ],
    });
    const phaseOn = async (at: string) => {
      setClock(new Date(at));
      const view = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
      return [view.cycle_day, view.current_phase];
    };
    assert.deepEqual(await phaseOn('2026-11-01T12:00:00Z'), [1, 'research']);
    assert.deepEqual(await phaseOn('2026-11-03T12:00:00Z'), [3, 'production']);
    assert.deepEqual(await phaseOn('2026-11-09T12:00:00Z'), [9, 'publishing']);
  });

  describe('the bucket rules (buildTodayView)', () => {
    const at = Date.parse(NOW);
    const utcTeam = { config: { timezone: 'UTC' } } as unknown as TeamItem;
    const instance = (name: string, scheduled_at: string, extra: Partial<LoopInstanceItem> = {}) => {
      names.set(loopId(name), name);
      return {
        id: loopId(`${name} instance`),
        loop_id: loopId(name),
        scheduled_at,
        status: 'scheduled',
        started_at: null,
        completed_at: null,
        signals_emitted: [],
        ...extra,
      } as unknown as LoopInstanceItem;
    };

    it('upcoming ends before the next local midnight', () => {
      const view = buildTodayView(
        utcTeam,
        [],
        [
          instance('last-minute', '2026-11-20T23:59:59.999Z'),
          instance('tomorrow', '2026-11-21T00:00:00.000Z'),
        ],
        at,
      );
      assert.deepEqual(ids(view.upcoming), ['last-minute']);
    });

    it('orders the signals by when they fired, not by when their loops were scheduled', () => {
      const done = (name: string, scheduled_at: string, completed_at: string) =>
        instance(name, scheduled_at, { status: 'completed', completed_at, signals_emitted: [name] });
      const view = buildTodayView(
        utcTeam,
        [],
        [
          done('scheduled-first', '2026-11-20T08:00:00.000Z', '2026-11-20T10:00:00.000Z'),
          done('scheduled-second', '2026-11-20T09:00:00.000Z', '2026-11-20T09:30:00.000Z'),
        ],
        at,
      );
      assert.deepEqual(ids(view.completed_today), ['scheduled-first', 'scheduled-second']);
      assert.deepEqual(
        view.signals_fired.map((s) => s.signal),
        ['scheduled-second', 'scheduled-first'],
      );
    });
  });

  describe('loop instances scheduled before yesterday', () => {
    // A UTC team at 10:30 on the 20th: its yesterday began at 00:00 on the 19th, and the window read
    // by scheduled time at 08:30 on the 18th.
    const threeDaysAgo = '2026-11-17T09:00:00Z';
    const old = (teamId: string, name: string, extra: Record<string, unknown>) => {
      names.set(loopId(name), name);
      return addLoopInstance(teamId, {
        loop_id: loopId(name),
        cycle_instance_id: '0193a0a0-0000-7000-8000-000000000000',
        occurrence_day: 1,
        scheduled_at: threeDaysAgo,
        ...extra,
      });
    };
    const todayOf = async (teamId: string) => {
      const res = await h.call('GET', `/api/v1/teams/${teamId}/today`);
      assert.equal(res.status, 200, res.text.slice(0, 200));
      return res.body;
    };

    it('one completed today is in completed_today, and its signals in signals_fired', async () => {
      setClock(new Date(NOW));
      const team = await createTeam(h);
      const done = await old(team.id, 'late-finisher', {
        status: 'completed',
        started_at: threeDaysAgo,
        completed_at: '2026-11-20T08:00:00Z',
        signals_emitted: ['published'],
      });
      // Completed three days ago: not today's.
      await old(team.id, 'long-done', {
        status: 'completed',
        completed_at: '2026-11-17T10:00:00Z',
        signals_emitted: ['stale'],
      });
      const view = await todayOf(team.id);
      assert.deepEqual(ids(view.completed_today), ['late-finisher']);
      assert.deepEqual(view.signals_fired, [
        {
          signal: 'published',
          fired_at: '2026-11-20T08:00:00.000Z',
          loop_instance_id: done.id,
          loop_id: loopId('late-finisher'),
        },
      ]);
    });

    it('one failed or skipped today without a completion time has its signals in signals_fired', async () => {
      setClock(new Date(NOW));
      const team = await createTeam(h);
      // Started today, three days late, and ended without completing: its start is when it fired.
      await old(team.id, 'failed-late', {
        status: 'failed',
        started_at: '2026-11-20T08:00:00Z',
        signals_emitted: ['failed'],
      });
      await old(team.id, 'skipped-late', {
        status: 'skipped',
        started_at: '2026-11-20T09:00:00Z',
        signals_emitted: ['skipped'],
      });
      const view = await todayOf(team.id);
      assert.deepEqual(
        view.signals_fired.map((s: { signal: string }) => s.signal),
        ['failed', 'skipped'],
      );
    });

    it('one still running is in running', async () => {
      setClock(new Date(NOW));
      const team = await createTeam(h);
      await old(team.id, 'slow-runner', { status: 'running', started_at: threeDaysAgo });
      // Started this morning, three days late: its start is its signals' time.
      await old(team.id, 'late-starter', {
        status: 'running',
        started_at: '2026-11-20T09:00:00Z',
        signals_emitted: ['started'],
      });
      const view = await todayOf(team.id);
      assert.deepEqual(ids(view.running), ['slow-runner', 'late-starter']);
      assert.deepEqual(
        view.signals_fired.map((s: { signal: string }) => s.signal),
        ['started'],
      );
    });

    it('an update moves it between the lists: it leaves running once completed, whatever the changes name', async () => {
      setClock(new Date(NOW));
      const team = await createTeam(h);
      const loop = await old(team.id, 'moved', {});
      assert.deepEqual(ids((await todayOf(team.id)).running), []);
      await updateLoopInstance(team.id, loop, { status: 'running', started_at: threeDaysAgo });
      assert.deepEqual(ids((await todayOf(team.id)).running), ['moved']);
      // The status alone, then the completion time alone: each write's keys follow the whole state.
      await updateLoopInstance(team.id, loop, { status: 'completed' });
      const completed = await todayOf(team.id);
      assert.deepEqual([ids(completed.running), ids(completed.completed_today)], [[], []]);
      await updateLoopInstance(team.id, loop, {
        completed_at: '2026-11-20T10:00:00Z',
        signals_emitted: ['published'],
      });
      const view = await todayOf(team.id);
      assert.deepEqual([ids(view.running), ids(view.completed_today)], [[], ['moved']]);
      assert.deepEqual(
        view.signals_fired.map((s: { signal: string }) => s.signal),
        ['published'],
      );
      // Back to scheduled (a retried run): off both lists again.
      await updateLoopInstance(team.id, loop, { status: 'scheduled', started_at: null, completed_at: null });
      const again = await todayOf(team.id);
      assert.deepEqual([again.running, again.completed_today, again.signals_fired], [[], [], []]);
    });

    it('keeps every Query bounded by its Limit, each list within its share, and another user to one page of each', async () => {
      // 700 running and 700 completed today, all scheduled three days ago, each row with 10 signals of
      // 63 astral code points (4 bytes each as sent): each list passes its 1.25 MiB, the signals their
      // 1 MiB, and each gsi1 partition dynalite's 1 MiB page.
      setClock(new Date(NOW));
      const team = await createTeam(h);
      const signals = Array.from({ length: 10 }, (_, i) => '𝕏'.repeat(63) + i);
      const rows = (status: string, extra: Record<string, unknown>) =>
        Array.from({ length: 700 }, (_, i) => ({
          loop_id: loopId('old-heavy'),
          cycle_instance_id: '0193a0a0-0000-7000-8000-000000000000',
          occurrence_day: 1,
          scheduled_at: new Date(Date.parse(threeDaysAgo) + i * 1000).toISOString(),
          status,
          signals_emitted: signals,
          ...extra,
        }));
      await addLoopInstances(team.id, [
        ...rows('running', { started_at: threeDaysAgo }),
        ...rows('completed', { completed_at: '2026-11-20T09:00:00Z' }),
      ]);
      const recorder = recordDynamoRequests();
      const res = await h.call('GET', `/api/v1/teams/${team.id}/today`).finally(() => recorder.stop());
      assert.equal(res.status, 200, res.text.slice(0, 200));
      const sent = sentBytes(res.text);
      assert.ok(sent <= RESPONSE_BODY_MAX_BYTES, `${sent} bytes as sent`);
      // Each list was cut before its share.
      const { running, completed_today, signals_fired } = res.body;
      assert.ok(running.length > 100 && running.length < 700, `${running.length} running`);
      assert.ok(
        completed_today.length > 100 && completed_today.length < 700,
        `${completed_today.length} completed`,
      );
      assert.ok(
        signals_fired.length > 1000 && signals_fired.length < 7000,
        `${signals_fired.length} signals`,
      );
      // Every Query names a Limit: 2 cycles each way, at most 1,500 loop instances each of the four.
      const partitionOf = (request: RecordedRequest) =>
        String((request.input.ExpressionAttributeValues as Record<string, string> | undefined)?.[':pk'])
          .split('#')
          .slice(2)
          .join('#');
      const queries = recorder.requests.filter((request) => request.command === 'QueryCommand');
      const read = new Set<string>();
      for (const query of queries) {
        const { input } = query;
        const cycles =
          partitionOf(query) === 'CYCLES' ||
          (input.ExpressionAttributeValues as Record<string, string>)[':prefix'] === 'CYCLE#';
        assert.ok(Number(input.Limit) > 0 && Number(input.Limit) <= (cycles ? 2 : 1500), String(input.Limit));
        read.add(`${input.IndexName ?? 'table'} ${cycles ? 'cycles' : partitionOf(query) || 'loops'}`);
      }
      assert.deepEqual([...read].sort(), [
        'gsi1 LOOPS_DONE',
        'gsi1 LOOPS_RUNNING',
        'gsi1 cycles',
        'table cycles',
        'table loops',
      ]);
      // The owner's request read the gsi1 partitions on past a page; another user's reads one page of
      // each, then 404.
      const indexedLoops = (requests: readonly RecordedRequest[]) =>
        requests.filter((request) => partitionOf(request).startsWith('LOOPS_')).length;
      assert.ok(indexedLoops(recorder.requests) > 2, `${indexedLoops(recorder.requests)} gsi1 loop Queries`);
      const stranger = recordDynamoRequests();
      const refused = await h
        .call('GET', `/api/v1/teams/${team.id}/today`, { token: h.other.token })
        .finally(() => stranger.stop());
      assert.equal(refused.status, 404);
      assert.equal(indexedLoops(stranger.requests), 2);
    });
  });

  it('reads all of a 25-hour day: a loop due or fired in its last hour is today’s', async () => {
    // New York falls back on Sunday 1 November 2026: that day runs from 04:00 UTC to 05:00 UTC on the
    // 2nd. At 00:30 there (04:30 UTC) its last hour begins 23.5 h on and ends 24.5 h on.
    setClock(new Date('2026-11-01T04:30:00Z'));
    const team = await createTeam(h, { config: { timezone: 'America/New_York' } });
    const loop = (name: string, scheduled_at: string, extra: Record<string, unknown> = {}) => {
      names.set(loopId(name), name);
      return addLoopInstance(team.id, {
        loop_id: loopId(name),
        cycle_instance_id: '0193a0a0-0000-7000-8000-000000000000',
        occurrence_day: 1,
        scheduled_at,
        ...extra,
      });
    };
    // 23:45 EST: due today, 24.25 h from now.
    await loop('late-evening', '2026-11-02T04:45:00Z');
    // Scheduled days before and fired at 23:45 EST (found by when it fired, not in the window).
    await loop('fired-late', '2026-10-28T12:00:00Z', {
      status: 'completed',
      started_at: '2026-11-02T04:40:00Z',
      completed_at: '2026-11-02T04:45:00Z',
      signals_emitted: ['published'],
    });
    // Midnight EST: tomorrow.
    await loop('tomorrow', '2026-11-02T05:00:00Z');
    const view = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    assert.deepEqual(ids(view.upcoming), ['late-evening']);
    assert.deepEqual(ids(view.completed_today), ['fired-late']);
  });

  it('takes the table’s copy of a loop over a stale one on the index', async () => {
    setClock(new Date(NOW));
    const team = await createTeam(h);
    names.set(loopId('finished'), 'finished');
    const loop = await addLoopInstance(team.id, {
      loop_id: loopId('finished'),
      cycle_instance_id: '0193a0a0-0000-7000-8000-000000000000',
      occurrence_day: 1,
      scheduled_at: '2026-11-20T09:00:00Z',
      status: 'running',
      started_at: '2026-11-20T09:00:00Z',
    });
    const isRunningIndex = (input: Record<string, unknown>) =>
      input.IndexName === 'gsi1' &&
      String((input.ExpressionAttributeValues as Record<string, unknown>)[':pk']).endsWith('#LOOPS_RUNNING');
    // What the running index answers while the loop runs.
    const recorder = recordDynamoRequests();
    const running = await h.call('GET', `/api/v1/teams/${team.id}/today`).finally(() => recorder.stop());
    assert.deepEqual(ids(running.body.running), ['finished']);
    const stale = recorder.requests.find((request) => isRunningIndex(request.input))!.items;
    assert.equal(stale?.length, 1);
    await updateLoopInstance(team.id, loop, { status: 'completed', completed_at: '2026-11-20T10:00:00Z' });
    // The index has not caught up yet: it still answers the running copy.
    intercept(
      'dynamo',
      (next: (args: unknown) => Promise<{ output: { Items?: unknown[] } }>) =>
        async (args: { input: Record<string, unknown> }) => {
          const result = await next(args);
          if (isRunningIndex(args.input)) result.output.Items = [...(stale ?? [])];
          return result;
        },
      'initialize',
    );
    const view = await h.call('GET', `/api/v1/teams/${team.id}/today`).finally(clearFaults);
    assert.deepEqual([ids(view.body.running), ids(view.body.completed_today)], [[], ['finished']]);
  });

  it('reads all of the team’s two days when they hold fewer than the cap, whatever came before', async () => {
    // A UTC team whose loops run every 2.5 minutes: 576 a day, 1,152 in its yesterday and today
    // (under the 1,500 a read takes), and as many a day before. At 00:30 the window read begins 50 h
    // back, at 22:30 on the 17th: read from there, the cap ran out at 13:00 today.
    setClock(new Date('2026-11-01T00:00:00Z'));
    const team = await createTeam(h);
    const first = Date.parse('2026-11-17T22:30:00Z');
    const count = (Date.parse('2026-11-21T00:00:00Z') - first) / 150_000;
    await addLoopInstances(
      team.id,
      Array.from({ length: count }, (_, i) => ({
        loop_id: loopId('every-150-seconds'),
        cycle_instance_id: '0193a0a0-0000-7000-8000-000000000000',
        occurrence_day: 1,
        scheduled_at: new Date(first + i * 150_000).toISOString(),
      })),
    );
    setClock(new Date('2026-11-20T00:30:00Z'));
    const view = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    // Every instance of the 20th is upcoming (nothing has run): 576, the last at 23:57:30.
    assert.equal(view.upcoming.length, 576);
    assert.equal(view.upcoming.at(-1).scheduled_at, '2026-11-20T23:57:30.000Z');
  });

  it('stays within the response limit with every row at its maximum, and the agents refuse a field past its limit', async () => {
    // Measured before: five tasks with titles of 380,000 quotes (each within its 1.5 MiB), each with a
    // loop instance today, made a 7,602,619-byte view, a 500. Now the copied fields are bounded at write
    // and each list ends before its share: at every limit, with the worst escaping, the view fits.
    const ctl = (n: number) => '\u0001'.repeat(n); // 7 bytes each as sent, the most a code point takes
    setClock(new Date(NOW));
    const team = await createTeam(h);
    // A task for each list: one task is run by 200 loop instances at most (TEAM_LIMITS.loopsPerTask).
    const addHeavyTask = () =>
      addTask(team.id, { task_type: ctl(64), title: ctl(200), status: ctl(64), platform: ctl(64) });
    const tasks = [await addHeavyTask(), await addHeavyTask(), await addHeavyTask()];
    const task = tasks[0]!;
    const cycle = await addCycle(team.id, {
      start_date: '2026-11-15T00:00:00Z',
      end_date: '2026-11-30T00:00:00Z',
      phases: [{ name: ctl(64), start_day: 1 }],
    });
    // 200 instances in each list (each row 7,422 bytes as sent, so each list passes its 1.25 MiB), all
    // with 10 signals of 64 code points: the 4,000 of the running and completed fired today, past its 1 MiB.
    const kinds = [
      { status: 'running', at: '2026-11-20T01:00:00Z', started_at: '2026-11-20T02:00:00Z' },
      { status: 'scheduled', at: '2026-11-20T20:00:00Z' },
      { status: 'completed', at: '2026-11-20T03:00:00Z', completed_at: '2026-11-20T09:00:00Z' },
    ];
    const signals = Array.from({ length: 10 }, (_, i) => ctl(63) + i);
    for (const [i, kind] of kinds.entries())
      for (let chunk = 0; chunk < 4; chunk++)
        await Promise.all(
          Array.from({ length: 50 }, () =>
            addLoopInstance(team.id, {
              loop_id: loopId('heavy'),
              cycle_instance_id: cycle.cycle_instance_id,
              occurrence_day: 6,
              scheduled_at: kind.at,
              status: kind.status,
              task_id: tasks[i]!.id,
              started_at: kind.started_at ?? null,
              completed_at: kind.completed_at ?? null,
              signals_emitted: signals,
            }),
          ),
        );

    const res = await h.call('GET', `/api/v1/teams/${team.id}/today`);
    assert.equal(res.status, 200, res.text.slice(0, 200));
    const sent = sentBytes(res.text);
    assert.ok(sent <= RESPONSE_BODY_MAX_BYTES, `${sent} bytes as sent`);
    const view = res.body;
    assert.equal(view.current_phase, ctl(64));
    // Each list was cut, its rows whole and in time order.
    for (const list of [view.running, view.upcoming, view.completed_today]) {
      assert.ok(list.length > 100 && list.length < 200, `${list.length} rows`);
      assert.equal(list[0].task_title, ctl(200));
      assert.deepEqual(list[0].signals_emitted, signals);
    }
    assert.ok(view.signals_fired.length > 1000 && view.signals_fired.length < 4000);

    // Past a limit: refused, naming the rule, nothing written (the colleague's title first).
    const refused = async (write: Promise<unknown>, rule: RegExp) => assert.rejects(write, rule);
    await refused(
      addTask(team.id, { task_type: 't', title: '"'.repeat(380_000) }),
      /^Error: Invalid task: title: String should have at most 200 characters$/,
    );
    await refused(
      addTask(team.id, { task_type: ctl(65), title: 't' }),
      /Invalid task: task_type: .*at most 64/,
    );
    await refused(addTask(team.id, { task_type: 't', title: 't', status: ctl(65) }), /status: .*at most 64/);
    await refused(
      addTask(team.id, { task_type: 't', title: 't', platform: ctl(65) }),
      /platform: .*at most 64/,
    );
    await refused(addTasks(team.id, [{ task_type: 't', title: ctl(201) }]), /Invalid task: title/);
    await refused(updateTask(team.id, task.id, { title: ctl(201) }), /Invalid task changes: title/);
    const loop = {
      loop_id: loopId('heavy'),
      cycle_instance_id: cycle.cycle_instance_id,
      occurrence_day: 6,
      scheduled_at: '2026-11-20T20:00:00Z',
    };
    await refused(
      addLoopInstance(team.id, { ...loop, signals_emitted: [...signals, 'one more'] }),
      /Invalid loop instance: signals_emitted: List should have at most 10 items/,
    );
    await refused(addLoopInstances(team.id, [{ ...loop, signals_emitted: [ctl(65)] }]), /at most 64/);
    await refused(addLoopInstance(team.id, { ...loop, status: ctl(65) }), /status: .*at most 64/);
    // The ids are UUIDs, as the view documents them: before, any text was stored, a row of up to 400 KB.
    await refused(
      addLoopInstance(team.id, { ...loop, loop_id: '"'.repeat(300_000) }),
      /^Error: Invalid loop instance: loop_id: should be a UUID$/,
    );
    await refused(
      addLoopInstances(team.id, [{ ...loop, cycle_instance_id: 'cycle 1' }]),
      /Invalid loop instance: cycle_instance_id: should be a UUID/,
    );
    // The view documents occurrence_day as an integer: another number broke its response schema.
    await refused(addLoopInstance(team.id, { ...loop, occurrence_day: 1.5 }), /occurrence_day: .*integer/);
    await refused(
      updateLoopInstance(
        team.id,
        { id: task.id, scheduled_at: loop.scheduled_at },
        { signals_emitted: [ctl(65)] },
      ),
      /Invalid loop instance changes/,
    );
    await refused(
      addCycle(team.id, { ...cycle, phases: [{ name: ctl(65), start_day: 1 }] }),
      /Invalid strategy cycle phases: 0.name: .*at most 64/,
    );
    const after = (await h.call('GET', `/api/v1/teams/${team.id}/today`)).body;
    assert.deepEqual(after, view);
    assert.equal((await h.call('GET', `/api/v1/teams/${team.id}/tasks`)).body.total, tasks.length);
  });

  const isLoopQuery = (request: RecordedRequest) =>
    String(
      (request.input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':from'],
    ).startsWith('LOOP#');

  it('reads on past a 1 MB page: the instances after it are in the view, nothing cut at the first page', async () => {
    // 1,400 instances this morning with their stored fields at their limits (a status no list shows, 10
    // signals of 64 astral code points), then 20 upcoming this evening, all in the later Query of the
    // view. dynalite ends a page at 1 MiB of its own estimate (405 such rows; DynamoDB at 1 MB of UTF-8,
    // about 220 of the heaviest rows: docs/teams.md "Today view"), so the evening's come pages later.
    setClock(new Date('2026-11-01T00:00:00Z'));
    const team = await createTeam(h);
    const heavy = (n: number) => '𝕏'.repeat(n);
    const instance = (at: number, extra: Record<string, unknown> = {}) => ({
      loop_id: loopId('dense'),
      cycle_instance_id: '0193a0a0-0000-7000-8000-000000000000',
      occurrence_day: 1,
      scheduled_at: new Date(at).toISOString(),
      ...extra,
    });
    const morning = Date.parse('2026-11-20T06:00:00Z');
    await addLoopInstances(
      team.id,
      Array.from({ length: 1400 }, (_, i) =>
        instance(morning + i * 1000, {
          status: heavy(64),
          signals_emitted: Array.from({ length: 10 }, (_, k) => heavy(63) + k),
        }),
      ),
    );
    const evening = Date.parse('2026-11-20T18:00:00Z');
    await addLoopInstances(
      team.id,
      Array.from({ length: 20 }, (_, i) => instance(evening + i * 60_000)),
    );
    setClock(new Date('2026-11-20T12:00:00Z'));
    const recorder = recordDynamoRequests();
    const result = await h.call('GET', `/api/v1/teams/${team.id}/today`).finally(() => recorder.stop());
    assert.equal(result.status, 200);
    assert.equal(result.body.upcoming.length, 20);
    assert.equal(result.body.upcoming.at(-1).scheduled_at, '2026-11-20T18:19:00.000Z');
    // The later Query went on page after page (3 in dynalite), each asking for what its cap leaves:
    // waves one after another, where rows this small would have been one.
    const loops = recorder.requests.filter(isLoopQuery);
    assert.ok(loops.length > 2, `${loops.length} loop Queries`); // 4 here: pages of 587 rows
    assert.ok(recorder.waves() > 1, `${recorder.waves()} waves`); // 3
    // Another user's request reads each Query's first page, then 404: only the owner reads on.
    const stranger = recordDynamoRequests();
    const refused = await h
      .call('GET', `/api/v1/teams/${team.id}/today`, { token: h.other.token })
      .finally(() => stranger.stop());
    assert.equal(refused.status, 404);
    assert.equal(stranger.requests.filter(isLoopQuery).length, 2);
  });

  it('is one wave: the team, its cycles, the loop window and the running and fired instances in parallel', async () => {
    const { team } = await teamIn('Pacific/Auckland');
    const { result, commands, waves } = await dynamoRequestsOf(() =>
      h.call('GET', `/api/v1/teams/${team.id}/today`),
    );
    assert.equal(result.status, 200);
    assert.equal(waves, 1);
    // The team; the cycles by number and by start (gsi1); the loop window's two Queries; the running
    // and the fired instances (gsi1).
    assert.deepEqual(commands.sort(), ['GetItemCommand', ...Array(6).fill('QueryCommand')]);
  });
});
