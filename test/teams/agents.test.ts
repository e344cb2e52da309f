// The agents' write API (shared/teams/agents.ts): what its writes leave in the table.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setClock } from '../../shared/clock.ts';
import { itemBytes } from '../../shared/db/item-size.ts';
import { getItem, queryPartition, removeListEntries, updateItem } from '../../shared/db/store.ts';
import { newId } from '../../shared/ids.ts';
import { RESPONSE_BODY_MAX_BYTES, sentBytes } from '../../shared/lambda-response.ts';
import {
  addActivity,
  addCycle,
  addLoopInstance,
  addMember,
  addTask,
  addTasks,
  type LoopInstanceItem,
  setCanvasLayout,
  setContentCadence,
  updateLoopInstance,
  updateTask,
  updateTeam,
} from '../../shared/teams/agents.ts';
import { loopId, teamKeys } from '../../shared/teams/keys.ts';
import { dynamoRequestsOf, recordDynamoRequests } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { intercept, sdkError } from '../support/sdk-faults.ts';
import { createTeam } from './fixtures.ts';

/** A team's stored items (whose sort key begins with `prefix`), every page: a Scan's one page ends at
 * 1 MB of the whole table, which the large records here pass. */
const teamItems = (teamId: string, prefix?: string) =>
  queryPartition<Record<string, unknown>>(teamKeys.partition(teamId), { prefix, limit: 100_000 });

/** Runs `add` with the answer to its first UpdateItem whose input holds `about` (by default a loop-key
 * append) lost after it landed, so the SDK sends it again; `meanwhile` runs between the two. `lost`:
 * whether that happened. */
async function loopAppendAnswerLost<T>(
  add: () => Promise<T>,
  meanwhile?: () => Promise<unknown>,
  about = 'loop_keys',
) {
  let armed = true;
  const removeFault = intercept('dynamo', (next, context) => async (args) => {
    if (!armed || context.commandName !== 'UpdateItemCommand' || !JSON.stringify(args.input).includes(about))
      return next(args);
    armed = false;
    await next(args);
    await meanwhile?.();
    throw sdkError('timeout');
  });
  try {
    return { result: await add(), lost: !armed };
  } finally {
    removeFault();
  }
}

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  setClock(undefined);
  await h.close();
});

describe("the team's updated_at", () => {
  it('moves with what the team read shows (members, recent activity), not with a task', async () => {
    setClock(new Date('2026-11-18T12:00:00.000Z'));
    const team = await createTeam(h);
    const read = async () => (await h.call('GET', `/api/v1/teams/${team.id}`)).body;

    setClock(new Date('2026-11-18T12:01:00.000Z'));
    await addTask(team.id, { task_type: 'social_post', title: 'Not in the team read' });
    assert.equal((await read()).updated_at, '2026-11-18T12:00:00.000Z', 'a task is not part of it');

    setClock(new Date('2026-11-18T12:02:00.000Z'));
    const entry = await addActivity(team.id, { action_type: 'note', description: 'Shown' });
    const withActivity = await read();
    assert.deepEqual(withActivity.recent_activity, [entry]);
    assert.equal(withActivity.updated_at, '2026-11-18T12:02:00.000Z');

    setClock(new Date('2026-11-18T12:03:00.000Z'));
    await addMember(team.id, {
      role: 'writer',
      agent_slug: 'social-writer',
      display_name: 'Writer',
      persona_name: 'Leo',
      capabilities: ['social_post'],
    });
    const withMember = await read();
    assert.equal(withMember.members.length, 1);
    assert.equal(withMember.updated_at, '2026-11-18T12:03:00.000Z');
    // The list shows the same record.
    const listed = (await h.call('GET', '/api/v1/teams?limit=100')).body.find(
      (t: { id: string }) => t.id === team.id,
    );
    assert.equal(listed.updated_at, withMember.updated_at);
  });

  it('a backdated entry (the seed writes history) moves it to the time of the write', async () => {
    setClock(new Date('2026-11-18T12:00:00.000Z'));
    const team = await createTeam(h);
    setClock(new Date('2026-11-18T13:00:00.000Z'));
    await addActivity(team.id, {
      action_type: 'note',
      description: 'Yesterday',
      created_at: '2026-11-17T09:00:00.000Z',
    });
    assert.equal(
      (await h.call('GET', `/api/v1/teams/${team.id}`)).body.updated_at,
      '2026-11-18T13:00:00.000Z',
    );
  });

  it('never moves back: an update stamped earlier that lands after a later one adds its count, keeps the later time', async () => {
    setClock(new Date('2026-11-18T12:00:00.000Z'));
    const team = await createTeam(h);
    // Two agents write at once; the one that took its time second lands first.
    setClock(new Date('2026-11-18T12:05:00.000Z'));
    await addActivity(team.id, { action_type: 'note', description: 'Landed first' });
    setClock(new Date('2026-11-18T12:04:00.000Z'));
    await addActivity(team.id, { action_type: 'note', description: 'Landed second' });
    const read = (await h.call('GET', `/api/v1/teams/${team.id}`)).body;
    assert.equal(read.updated_at, '2026-11-18T12:05:00.000Z');
    assert.equal(read.recent_activity.length, 2);
  });
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

describe('updateTask within its page’s budget', () => {
  // Control characters weigh 7 bytes each as sent: 120,000 of them are 840,000 bytes, under a task
  // page's 1.5 MiB (1,572,864) alone, past it twice.
  const ctl = (n: number, c = '\u0001') => c.repeat(n);
  const taskBudget = /Invalid task: \d+ bytes as sent, more than the 1572864/;

  it('refuses an update that would make the task weigh more than its page, writing nothing', async () => {
    const team = await createTeam(h);
    const small = await addTask(team.id, { task_type: 't', title: 'small' });
    const stored = () => getItem(teamKeys.task(team.id, small.id));
    const before = await stored();
    await assert.rejects(updateTask(team.id, small.id, { output_data: { o: ctl(230_000) } }), taskBudget);
    assert.deepEqual(await stored(), before);

    // Each field alone fits; the task with both would not.
    const big = await addTask(team.id, { task_type: 't', title: 'big', output_data: { o: ctl(120_000) } });
    const bigBefore = await getItem(teamKeys.task(team.id, big.id));
    await assert.rejects(updateTask(team.id, big.id, { evaluation_notes: ctl(120_000) }), taskBudget);
    assert.deepEqual(await getItem(teamKeys.task(team.id, big.id)), bigBefore);

    // The task list and the dashboard stay within their bounds.
    const dashboard = await h.call('GET', `/api/v1/teams/${team.id}/dashboard`);
    assert.equal(dashboard.status, 200);
    assert.ok(sentBytes(dashboard.text) <= RESPONSE_BODY_MAX_BYTES);
  });

  it('refuses the second of two racing updates that only together pass the budget', async () => {
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 't', title: 'racing' });
    const results = await Promise.allSettled([
      updateTask(team.id, task.id, { output_data: { o: ctl(120_000) } }),
      updateTask(team.id, task.id, { evaluation_notes: ctl(120_000) }),
    ]);
    assert.deepEqual(results.map((result) => result.status).sort(), ['fulfilled', 'rejected']);
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    assert.match(String(refused.reason), taskBudget);
    const item = await getItem<Record<string, unknown>>(teamKeys.task(team.id, task.id));
    assert.ok(sentBytes(JSON.stringify(item)) <= 1_572_864);
  });

  it('accepts any number of updates that replace a large field, and a task written before sizes were kept', async () => {
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 't', title: 't', output_data: { o: ctl(120_000) } });
    for (let i = 0; i < 4; i++)
      await updateTask(team.id, task.id, { output_data: { o: ctl(120_000, String.fromCharCode(2 + i)) } });
    // A task stored without its size (written before updates were bounded) is measured once.
    await updateItem(teamKeys.task(team.id, task.id), { remove: ['sent_bytes'] });
    const updated = await updateTask(team.id, task.id, { title: 'renamed', status: 'in_review' });
    assert.deepEqual([updated.title, updated.status], ['renamed', 'in_review']);
    await assert.rejects(updateTask(team.id, task.id, { evaluation_notes: ctl(120_000) }), taskBudget);
    const list = await h.call('GET', `/api/v1/teams/${team.id}/tasks`);
    assert.equal(list.body.tasks[0].output_data.o, ctl(120_000, '\u0005'));
  });
});

describe('a record within its DynamoDB item', () => {
  // DynamoDB counts strings in UTF-8 bytes, dynalite in UTF-16 units: 140,000 Thai letters are 420,000
  // bytes on AWS, past its 400 KB, and 140,000 units here. Within a page's share as sent, they were
  // written here and refused on AWS (the tests' guard stood in for it), and 500,000 ASCII letters
  // failed as the store's own error.
  const stored = /bytes as stored, more than the 395176 its DynamoDB item leaves it/;
  const thai = (n: number) => 'ก'.repeat(n);
  const tasksOf = async (teamId: string) =>
    (await h.call('GET', `/api/v1/teams/${teamId}/tasks`)).body.total as number;

  it('refuses a task, an activity entry or a strategy cycle past it, naming its size, writing nothing', async () => {
    const team = await createTeam(h);
    for (const output_data of [{ text: thai(140_000) }, { text: 'a'.repeat(500_000) }]) {
      await assert.rejects(addTask(team.id, { task_type: 't', title: 't', output_data }), stored);
      await assert.rejects(addTasks(team.id, [{ task_type: 't', title: 't', output_data }]), stored);
    }
    assert.equal(await tasksOf(team.id), 0);
    await assert.rejects(
      addActivity(team.id, { action_type: 'a', description: 'd', details: { text: thai(140_000) } }),
      /Invalid activity entry: \d+ bytes as stored/,
    );
    await assert.rejects(
      addCycle(team.id, {
        start_date: '2026-01-01',
        end_date: '2026-01-15',
        content_strategy: { plan: thai(140_000) },
      }),
      /Invalid strategy cycle: \d+ bytes as stored/,
    );
    const activity = await h.call('GET', `/api/v1/teams/${team.id}/activity`);
    assert.equal(activity.body.total, 0);
    // Just within it, written.
    await addTask(team.id, { task_type: 't', title: 't', output_data: { text: thai(131_000) } });
    assert.equal(await tasksOf(team.id), 1);
  });

  it('writes a task of exactly 395,176 bytes as stored and refuses one byte more (docs/decisions.md)', async () => {
    const team = await createTeam(h);
    const task = (n: number) =>
      addTask(team.id, { task_type: 't', title: 't', output_data: { text: 'a'.repeat(n) } });
    // A first try past it names its size; an ASCII letter is one byte as stored.
    const refused = await task(400_000).then(
      () => assert.fail('written past its item'),
      (error: Error) => error.message,
    );
    const bytes = Number(/(\d+) bytes as stored, more than the 395176 /.exec(refused)?.[1]);
    const atLimit = 400_000 - (bytes - 395_176);
    await assert.rejects(
      task(atLimit + 1),
      /^Error: Invalid task: 395177 bytes as stored, more than the 395176 /,
    );
    assert.equal(await tasksOf(team.id), 0);
    await task(atLimit);
    assert.equal(await tasksOf(team.id), 1);
  });

  it('refuses an update that would take a task past it, writing nothing', async () => {
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 't', title: 't', output_data: { text: thai(100_000) } });
    const before = await getItem(teamKeys.task(team.id, task.id));
    await assert.rejects(updateTask(team.id, task.id, { evaluation_notes: thai(40_000) }), stored);
    assert.deepEqual(await getItem(teamKeys.task(team.id, task.id)), before);
    // Replacing the large field instead fits.
    const replaced = await updateTask(team.id, task.id, { output_data: { text: thai(120_000) } });
    assert.equal((replaced.output_data as { text: string }).text.length, 120_000);
  });

  it('updates a task without reading it while both its bounds leave room, however large it is', async () => {
    const team = await createTeam(h);
    const keys = (id: string) => teamKeys.task(team.id, id);
    const requests = async (update: () => Promise<unknown>) => (await dynamoRequestsOf(update)).commands;
    // 300,000 bytes as stored and as sent: a small change is one request (it read the task every time
    // while the task was over half its item's share as sent).
    const large = await addTask(team.id, {
      task_type: 't',
      title: 't',
      output_data: { text: thai(100_000) },
    });
    assert.deepEqual(await requests(() => updateTask(team.id, large.id, { title: 'renamed' })), [
      'UpdateItemCommand',
    ]);
    // Numbers deep in lists take twice their JSON in an item: the stored bound counts them as AWS does.
    const deep = (n: number) => ({ d: Array.from({ length: n }, () => [[[[[[1]]]]]]) });
    const task = await addTask(team.id, { task_type: 't', title: 't', output_data: deep(5_000) });
    const before = await getItem<{ sent_bytes: number; stored_bytes: number }>(keys(task.id));
    assert.ok(before!.stored_bytes > 1.9 * before!.sent_bytes, JSON.stringify(before));
    await assert.rejects(updateTask(team.id, task.id, { output_data: deep(16_500) }), stored);
    assert.deepEqual(await getItem(keys(task.id)), before);
    // A task stored without its item's bound (written before it was kept) is measured once.
    await updateItem(keys(task.id), { remove: ['stored_bytes'] });
    assert.deepEqual(await requests(() => updateTask(team.id, task.id, { title: 'measured' })), [
      'UpdateItemCommand',
      'GetItemCommand',
      'UpdateItemCommand',
    ]);
    const { loop_keys, sent_bytes, stored_bytes, ...rest } = (await getItem<Record<string, unknown>>(
      keys(task.id),
    ))!;
    assert.equal(stored_bytes, itemBytes(rest), 'made exact');
    assert.deepEqual(await requests(() => updateTask(team.id, task.id, { title: 'unread' })), [
      'UpdateItemCommand',
    ]);
  });

  /** Adds the task's i-th loop instance (scheduled i minutes into the day). */
  const runOf =
    (teamId: string, taskId: string) =>
    (i: number): Promise<LoopInstanceItem> =>
      addLoopInstance(teamId, {
        loop_id: loopId('daily_content'),
        cycle_instance_id: '0193a0a0-0000-7000-8000-000000000001',
        occurrence_day: 1,
        scheduled_at: new Date(Date.UTC(2026, 10, 18, 0, i)).toISOString(),
        task_id: taskId,
      });
  /** Runs the i-th for i from `from` up to `to`, twenty at a time. */
  const runMany = async (run: (i: number) => Promise<unknown>, from: number, to: number) => {
    for (let i = from; i < to; i += 20)
      await Promise.all(Array.from({ length: Math.min(20, to - i) }, (_, j) => run(i + j)));
  };
  const loopSortKeys = async (teamId: string) =>
    (await teamItems(teamId, teamKeys.loopAt(''))).map((item) => item.sk as string);
  const full = /Invalid loop instance: task .* is already run by 200 loop instances/;
  /** A task run by 199 instances and a 200th whose process died after its key's append, at `start`. */
  const fullTaskWithKeyToNothing = async () => {
    const start = Date.parse('2026-11-18T12:00:00Z');
    setClock(new Date(start));
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 't', title: 't' });
    const loop = runOf(team.id, task.id);
    await runMany(loop, 0, 199);
    await diesBeforeInstance(() => loop(199));
    return { start, team, task, loop };
  };
  /** Runs `add` with its process dying after its key's append, before its instance's put. */
  const diesBeforeInstance = async (add: () => Promise<unknown>) => {
    const removeFault = intercept(
      'dynamo',
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand' && JSON.stringify(args.input).includes('loop_instance'))
          throw new Error('process died');
        return next(args);
      },
      'initialize',
    );
    try {
      await assert.rejects(add(), /process died/);
    } finally {
      removeFault();
    }
  };

  it('refuses a loop instance past the 200 one task may have, writing nothing', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 't', title: 't' });
    const loop = runOf(team.id, task.id);
    await runMany(loop, 0, 200);
    await assert.rejects(loop(200), full);
    const item = await getItem<{ loop_keys: string[] }>(teamKeys.task(team.id, task.id));
    assert.equal(item!.loop_keys.length, 200);
    assert.equal((await loopSortKeys(team.id)).length, 200);
  });

  it('gives back the slot of an instance whose process died before writing it, once no call can still be', async () => {
    // The 200th instance's process dies after its key's append: the key holds the last slot, to nothing.
    const { start, team, task, loop } = await fullTaskWithKeyToNothing();
    const keysHeld = async () =>
      (await getItem<{ loop_keys: string[] }>(teamKeys.task(team.id, task.id)))!.loop_keys;
    const written = new Set(await loopSortKeys(team.id));
    const left = (await keysHeld()).filter((sk) => !written.has(sk));
    assert.equal(left.length, 1, 'one key to no instance');

    // Within the time a call may run (15 minutes) and the margin past it (20 minutes, docs/teams.md),
    // the key may be one in flight: the task stays full.
    for (const minutes of [14, 19]) {
      setClock(new Date(start + minutes * 60_000));
      await assert.rejects(loop(200), full);
      assert.ok((await keysHeld()).includes(left[0]!), `kept at ${minutes} minutes`);
    }

    // Past it, the key is given back and the new instance takes its slot; then the task is full again.
    setClock(new Date(start + 21 * 60_000));
    const added = await loop(200);
    const held = await keysHeld();
    assert.equal(held.length, 200);
    assert.ok(!held.includes(left[0]!), 'the key to nothing is gone');
    assert.ok(held.includes(teamKeys.loop(team.id, added.scheduled_at, added.id).sk));
    assert.deepEqual(new Set(held), new Set(await loopSortKeys(team.id)), 'every key names an instance');
    await assert.rejects(loop(201), full);
  });

  it('appends a key once when the SDK resends its append after another append landed', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 't', title: 't' });
    const loop = runOf(team.id, task.id);
    // The first append lands and its answer is lost; another append lands before the SDK's resend.
    // Before, the resend appended the key again (a write id knows only the last write): two slots.
    const { result: first, lost } = await loopAppendAnswerLost(
      () => loop(0),
      () => loop(1),
    );
    assert.equal(lost, true, 'the answer was lost');
    const once = teamKeys.loop(team.id, first.scheduled_at, first.id).sk;
    const keysHeld = async () =>
      (await getItem<{ loop_keys: string[] }>(teamKeys.task(team.id, task.id)))!.loop_keys;
    const held = await keysHeld();
    assert.deepEqual(
      [held.length, held.filter((sk) => sk === once).length, held.indexOf(once)],
      [2, 1, 0],
      'held once, in its first place',
    );
    // So the task holds 200 instances, each by one key.
    await runMany(loop, 2, 200);
    assert.equal((await keysHeld()).length, 200);
    assert.deepEqual(
      new Set(await keysHeld()),
      new Set(await loopSortKeys(team.id)),
      'every key names an instance',
    );
    await assert.rejects(loop(200), full);
  });

  it('appends again when another writer gave a slot back between its refusal and its read of the task', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 't', title: 't' });
    const loop = runOf(team.id, task.id);
    await runMany(loop, 0, 200);
    const taskKeys = teamKeys.task(team.id, task.id);
    // Between the refused append and the read of the full task, a slot is given back (the first
    // key's, as another add's release takes one off), so the read finds room and no key to release.
    let armed = true;
    const removeFault = intercept(
      'dynamo',
      (next, context) => async (args) => {
        if (
          armed &&
          context.commandName === 'GetItemCommand' &&
          JSON.stringify(args.input).includes(task.id)
        ) {
          armed = false;
          const { loop_keys } = (await getItem<{ loop_keys: string[] }>(taskKeys))!;
          await removeListEntries(taskKeys, 'loop_keys', [{ index: 0, value: loop_keys[0] }]);
        }
        return next(args);
      },
      'initialize',
    );
    let added: LoopInstanceItem;
    try {
      added = await loop(200);
    } finally {
      removeFault();
    }
    assert.equal(armed, false, 'the slot was given back between the two');
    const held = (await getItem<{ loop_keys: string[] }>(taskKeys))!.loop_keys;
    assert.equal(held.length, 200);
    assert.ok(held.includes(teamKeys.loop(team.id, added.scheduled_at, added.id).sk));
  });

  it('gives back a key to nothing once when two adds to the full task find it together', async () => {
    const { start, team, task, loop } = await fullTaskWithKeyToNothing();

    // One add's lookup of the keys answers after the other add gave the key back and took its slot:
    // the list has moved, so the later add takes nothing off and is refused as full.
    setClock(new Date(start + 21 * 60_000));
    let armed = true;
    let winner: LoopInstanceItem | undefined;
    const removeFault = intercept(
      'dynamo',
      (next, context) => async (args) => {
        if (armed && context.commandName === 'BatchGetItemCommand') {
          armed = false;
          winner = await loop(200);
        }
        return next(args);
      },
      'initialize',
    );
    const warnings: string[] = [];
    const { warn } = console;
    const level = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'info';
    console.warn = (line: string) => warnings.push(line);
    try {
      await assert.rejects(loop(201), full);
    } finally {
      removeFault();
      console.warn = warn;
      process.env.LOG_LEVEL = level;
    }
    const held = (await getItem<{ loop_keys: string[] }>(teamKeys.task(team.id, task.id)))!.loop_keys;
    assert.equal(held.length, 200);
    assert.ok(held.includes(teamKeys.loop(team.id, winner!.scheduled_at, winner!.id).sk));
    assert.deepEqual(new Set(held), new Set(await loopSortKeys(team.id)), 'every key names an instance');
    const released = warnings
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.message === 'loop keys to no instance released');
    assert.deepEqual(
      released.map((entry) => entry.released),
      [1],
      'logged by the add that took it off alone',
    );
  });
});

describe('addLoopInstance with its answer lost', () => {
  it("appends the instance's key to its task once, however often the SDK sends the append", async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 't', title: 't' });
    // The append lands and its answer is lost: the SDK sends it again.
    const { result: loop, lost } = await loopAppendAnswerLost(() =>
      addLoopInstance(team.id, {
        loop_id: loopId('daily_content'),
        cycle_instance_id: '0193a0a0-0000-7000-8000-000000000001',
        occurrence_day: 1,
        scheduled_at: '2026-11-18T13:00:00Z',
        task_id: task.id,
      }),
    );
    assert.equal(lost, true, 'the answer was lost');
    const item = await getItem<{ loop_keys: string[] }>(teamKeys.task(team.id, task.id));
    assert.deepEqual(item!.loop_keys, [teamKeys.loop(team.id, loop.scheduled_at, loop.id).sk]);
  });
});

describe('updateLoopInstance', () => {
  /** A new team with one loop instance running since `since`, at 2026-11-20 10:30 UTC. */
  const runningSince = async (since: string) => {
    setClock(new Date('2026-11-20T10:30:00Z'));
    const team = await createTeam(h);
    const loop = await addLoopInstance(team.id, {
      loop_id: loopId('daily_content'),
      cycle_instance_id: '0193a0a0-0000-7000-8000-000000000001',
      occurrence_day: 1,
      scheduled_at: since,
      status: 'running',
      started_at: since,
    });
    return { team, loop };
  };

  it('keeps its gsi1 keys with the state it leaves when the SDK resends it after another update landed', async () => {
    const { team, loop } = await runningSince('2026-11-17T09:00:00Z');
    const keys = teamKeys.loop(team.id, loop.scheduled_at, loop.id);
    const indexed = async () => {
      const item = await getItem<Record<string, string>>(keys);
      return [item!.status, item!.completed_at, item!.gsi1pk, item!.gsi1sk];
    };
    assert.deepEqual(await indexed(), [
      'running',
      null,
      `TEAM#${team.id}#LOOPS_RUNNING`,
      `2026-11-17T09:00:00.000Z#${loop.id}`,
    ]);
    // The completion time lands, its answer is lost; the status lands before the SDK's resend. Written
    // as first read (running), the resend left a completed instance on the running partition.
    const { lost } = await loopAppendAnswerLost(
      () => updateLoopInstance(team.id, loop, { completed_at: '2026-11-20T10:00:00Z' }),
      () => updateLoopInstance(team.id, loop, { status: 'completed' }),
      'completed_at',
    );
    assert.equal(lost, true, 'the answer was lost');
    assert.deepEqual(await indexed(), [
      'completed',
      '2026-11-20T10:00:00.000Z',
      `TEAM#${team.id}#LOOPS_DONE`,
      `2026-11-20T10:00:00.000Z#${loop.id}`,
    ]);
    // Scheduled again: off gsi1.
    await updateLoopInstance(team.id, loop, { status: 'scheduled', started_at: null, completed_at: null });
    assert.deepEqual(await indexed(), ['scheduled', null, undefined, undefined]);
  });

  it('gives up with an Error after 10 rounds that other updates won, the instance as it was', async () => {
    const { team, loop } = await runningSince('2026-11-20T09:00:00Z');
    // Every write of the update is refused, as where another update lands before each one.
    let refused = 0;
    const removeFault = intercept('dynamo', (next, context) => async (args) => {
      if (context.commandName !== 'UpdateItemCommand' || !JSON.stringify(args.input).includes(loop.id))
        return next(args);
      refused++;
      throw sdkError('condition');
    });
    try {
      await assert.rejects(
        updateLoopInstance(team.id, loop, { status: 'completed' }),
        /not updated: other updates landed first 10 times/,
      );
    } finally {
      removeFault();
    }
    assert.equal(refused, 10);
    const item = await getItem<Record<string, string>>(teamKeys.loop(team.id, loop.scheduled_at, loop.id));
    assert.deepEqual([item!.status, item!.gsi1pk], ['running', `TEAM#${team.id}#LOOPS_RUNNING`]);
  });
});

describe('updateTask beside addLoopInstance', () => {
  it('keeps every loop instance and leaves each with the final task fields, however they interleave', async () => {
    setClock(new Date('2026-11-18T12:00:00Z'));
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 'social_post', title: 'Draft 0', platform: 'x' });
    const instances: Promise<LoopInstanceItem>[] = [];
    const updates: Promise<unknown>[] = [];
    for (let i = 1; i <= 12; i++) {
      instances.push(
        addLoopInstance(team.id, {
          loop_id: loopId('daily_content'),
          cycle_instance_id: '0193a0a0-0000-7000-8000-000000000001',
          occurrence_day: 1,
          scheduled_at: `2026-11-18T${String(i).padStart(2, '0')}:00:00Z`,
          task_id: task.id,
        }),
      );
      updates.push(
        updateTask(team.id, task.id, { title: `Draft ${i}`, status: i % 2 ? 'in_progress' : 'pending' }),
      );
    }
    const added = await Promise.all(instances);
    await Promise.all(updates);

    // Every instance is on the task, and every copy shows the task as it ended up.
    const stored = await getItem<{ loop_keys: string[]; title: string; status: string }>(
      teamKeys.task(team.id, task.id),
    );
    const keysOf = (loop: LoopInstanceItem) => teamKeys.loop(team.id, loop.scheduled_at, loop.id);
    assert.deepEqual(
      new Set(stored?.loop_keys),
      new Set(added.map((loop) => keysOf(loop).sk)),
      'no key lost',
    );
    for (const loop of added) {
      const copy = await getItem<LoopInstanceItem>(keysOf(loop));
      assert.deepEqual([copy?.task_title, copy?.task_status], [stored?.title, stored?.status], loop.id);
    }
  });

  it('leaves no instance that task updates do not refresh when the process dies between its two writes', async () => {
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 'social_post', title: 'Before', platform: 'x' });
    // The process dies after addLoopInstance's first write: its second write never reaches the table.
    let writes = 0;
    const removeFault = intercept(
      'dynamo',
      (next, context) => async (args) => {
        if (/^(PutItem|UpdateItem)Command$/.test(context.commandName ?? '') && ++writes === 2)
          throw new Error('process died');
        return next(args);
      },
      'initialize',
    );
    try {
      await assert.rejects(
        addLoopInstance(team.id, {
          loop_id: loopId('daily_content'),
          cycle_instance_id: '0193a0a0-0000-7000-8000-000000000001',
          occurrence_day: 1,
          scheduled_at: '2026-11-18T09:00:00Z',
          task_id: task.id,
        }),
        /process died/,
      );
    } finally {
      removeFault();
    }
    // The task learnt of the instance first: its key (to nothing now) is there, and copies skip it.
    const known = await getItem<{ loop_keys?: string[] }>(teamKeys.task(team.id, task.id));
    assert.equal(known?.loop_keys?.length, 1);
    await updateTask(team.id, task.id, { title: 'After' });
    const Items = await teamItems(team.id, teamKeys.loopAt(''));
    assert.deepEqual(
      Items.map((loop) => loop.task_title),
      Items.map(() => 'After'),
    );
  });

  it('never lets the copy of an older update overwrite a newer one on a loop instance', async () => {
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 'social_post', title: 'Draft', platform: 'x' });
    const loop = await addLoopInstance(team.id, {
      loop_id: loopId('daily_content'),
      cycle_instance_id: '0193a0a0-0000-7000-8000-000000000001',
      occurrence_day: 1,
      scheduled_at: '2026-11-18T09:00:00Z',
      task_id: task.id,
    });
    // Hold the first update's copy write (task version 1) until the second update is done.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstCopyWaiting = () => {};
    const firstCopyReached = new Promise<void>((resolve) => {
      firstCopyWaiting = resolve;
    });
    const removeFault = intercept(
      'dynamo',
      (next) => async (args) => {
        const input = args.input as {
          ExpressionAttributeNames?: Record<string, string>;
          ExpressionAttributeValues?: Record<string, unknown>;
        };
        const copiesVersion1 =
          Object.values(input.ExpressionAttributeNames ?? {}).includes('task_version') &&
          Object.values(input.ExpressionAttributeValues ?? {}).includes(1);
        if (copiesVersion1) {
          firstCopyWaiting();
          await held;
        }
        return next(args);
      },
      'initialize',
    );
    try {
      const first = updateTask(team.id, task.id, { title: 'First' });
      await firstCopyReached;
      await updateTask(team.id, task.id, { title: 'Second' });
      release();
      await first;
    } finally {
      removeFault();
    }
    const copy = await getItem<LoopInstanceItem>(teamKeys.loop(team.id, loop.scheduled_at, loop.id));
    assert.deepEqual([copy?.task_title, copy?.task_version], ['Second', 2]);
  });

  it('writes the loop copies only when a copied field changes, and ignores undefined changes', async () => {
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 'social_post', title: 'Draft', platform: 'x' });
    await addLoopInstance(team.id, {
      loop_id: loopId('daily_content'),
      cycle_instance_id: '0193a0a0-0000-7000-8000-000000000001',
      occurrence_day: 1,
      scheduled_at: '2026-11-18T09:00:00Z',
      task_id: task.id,
    });
    const score = await dynamoRequestsOf(() => updateTask(team.id, task.id, { quality_score: 0.9 }));
    assert.deepEqual(score.commands, ['UpdateItemCommand']);
    const title = await dynamoRequestsOf(() =>
      updateTask(team.id, task.id, { title: 'Final', status: undefined }),
    );
    assert.deepEqual(title.commands, ['UpdateItemCommand', 'UpdateItemCommand']);
    assert.deepEqual(
      [title.result.title, title.result.status, title.result.quality_score],
      ['Final', 'pending', 0.9],
    );
  });

  it('refuses an update of a task that does not exist, writing nothing', async () => {
    const team = await createTeam(h);
    await assert.rejects(
      updateTask(team.id, '01930000-0000-7000-8000-000000000000', { title: 'x' }),
      /No task/,
    );
    assert.equal(await getItem(teamKeys.task(team.id, '01930000-0000-7000-8000-000000000000')), undefined);
  });
});

describe('undefined changes', () => {
  it('change nothing, as in a Partial: the other fields are written and these keep their value', async () => {
    const team = await createTeam(h);
    const hiredAt = '2026-01-05T09:00:00.000Z';
    await updateTeam(team.id, { hired_at: hiredAt });
    // `{status: undefined}` type-checks; the document client drops the value but used to leave its
    // alias in the UpdateExpression (a DynamoDB error), and an undefined time became null.
    await updateTeam(team.id, { workflow_phase: 'producing', status: undefined, hired_at: undefined });
    const read = await h.call('GET', `/api/v1/teams/${team.id}`);
    assert.equal(read.body.workflow_phase, 'producing');
    assert.equal(read.body.status, team.status);
    assert.equal(read.body.hired_at, hiredAt);
  });

  it('with nothing left to write, read the item as it is (DynamoDB refuses an empty update)', async () => {
    const team = await createTeam(h);
    const keys = teamKeys.team(team.id);
    const before = await getItem(keys);
    assert.deepEqual(await updateItem(keys, { set: { status: undefined } }), before);
    // Its conditions still hold or fail, and a missing item is neither answered nor created.
    assert.deepEqual(
      await updateItem(keys, { set: { status: undefined }, expect: { status: team.status } }),
      before,
    );
    assert.equal(
      await updateItem(keys, { set: { status: undefined }, expect: { status: 'other' } }),
      undefined,
    );
    const missing = teamKeys.team('01930000-0000-7000-8000-000000000000');
    assert.equal(await updateItem(missing, { set: { status: undefined } }), undefined);
    assert.equal(await getItem(missing), undefined);
    assert.deepEqual(await getItem(keys), before);
  });
});

describe('updateTeam', () => {
  it('refuses to cancel a team, writing nothing: only unsubscribe records when, and so where the calendar stops', async () => {
    const team = await createTeam(h);
    const before = await getItem(teamKeys.team(team.id));
    await assert.rejects(
      updateTeam(team.id, { status: 'cancelled', workflow_phase: 'done' }),
      /Invalid team changes: status: a team becomes cancelled only through unsubscribeTeam/,
    );
    assert.deepEqual(await getItem(teamKeys.team(team.id)), before);
    await updateTeam(team.id, { status: 'paused' });
    assert.equal((await h.call('GET', `/api/v1/teams/${team.id}`)).body.status, 'paused');
  });

  it('keeps a cancelled team cancelled, writing nothing, while its other fields may change', async () => {
    const team = await createTeam(h);
    const cancelled = await h.call('POST', `/api/v1/teams/${team.id}/unsubscribe`);
    assert.equal(cancelled.status, 200, cancelled.text);
    const before = await getItem(teamKeys.team(team.id));
    await assert.rejects(
      updateTeam(team.id, { status: 'active', workflow_phase: 'producing' }),
      /Invalid team changes: status: a cancelled team stays cancelled/,
    );
    assert.deepEqual(await getItem(teamKeys.team(team.id)), before);
    await updateTeam(team.id, { workflow_phase: 'wrapping up' });
    const read = await h.call('GET', `/api/v1/teams/${team.id}`);
    assert.deepEqual(
      [read.body.status, read.body.workflow_phase, read.body.cancelled_at],
      ['cancelled', 'wrapping up', cancelled.body.cancelled_at],
    );
    await assert.rejects(updateTeam(newId(), { status: 'active' }), /No item TEAM#/);
  });

  it('refuses each field one past its limit, writing nothing (docs/teams.md; at every limit: teams.test.ts)', async () => {
    // A state 1–64 code points like team_type, a label 1–200 like display_name, connected_accounts at
    // most 20 of 1–100.
    const team = await createTeam(h);
    const before = await getItem(teamKeys.team(team.id));
    const text = (n: number) => '😀'.repeat(n);
    for (const [changes, rule] of [
      [{ status: text(65) }, /status: String should have at most 64 characters/],
      [{ workflow_phase: text(65) }, /workflow_phase: String should have at most 64 characters/],
      [{ trigger_mode: text(65) }, /trigger_mode: String should have at most 64 characters/],
      [{ onboarding_step: text(65) }, /onboarding_step: String should have at most 64 characters/],
      [
        { workflow_phase_label: text(201) },
        /workflow_phase_label: String should have at most 200 characters/,
      ],
      [
        { payments_subscription_id: text(201) },
        /payments_subscription_id: String should have at most 200 characters/,
      ],
      [
        { connected_accounts: Array.from({ length: 21 }, (_, i) => `a${i}`) },
        /connected_accounts: List should have at most 20 items after validation, not 21/,
      ],
    ] as const)
      await assert.rejects(updateTeam(team.id, changes), rule, JSON.stringify(Object.keys(changes)));
    assert.deepEqual(await getItem(teamKeys.team(team.id)), before);
  });
});

describe('setContentCadence', () => {
  it('stores a cadence by the create body rules, and refuses one that breaks them, writing nothing', async () => {
    const team = await createTeam(h);
    const cadence = () =>
      getItem<{ content_cadence: unknown[] }>(teamKeys.team(team.id)).then((item) => item?.content_cadence);
    await setContentCadence(team.id, [{ platform: 'instagram', task_type: 'social_post', per_week: 3 }]);
    const stored = [
      {
        platform: 'instagram',
        task_type: 'social_post',
        per_week: 3,
        preferred_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
        preferred_times: ['09:00'],
        title: null,
      },
    ];
    assert.deepEqual(await cadence(), stored);
    await assert.rejects(
      setContentCadence(team.id, [
        {
          platform: 'x',
          task_type: 'social_post',
          per_week: 4,
          preferred_days: ['monday'],
          preferred_times: ['09:00'],
        },
      ]),
      /per_week must be at most/,
    );
    // Two lines of one kind asking for the one day and time they name.
    const monday = { per_week: 1, preferred_days: ['monday' as const], preferred_times: ['09:00'] };
    await assert.rejects(
      setContentCadence(team.id, [
        { platform: 'x', task_type: 'post', ...monday },
        { platform: 'x', task_type: 'post', ...monday },
      ]),
      /Invalid content cadence: 1: Value error, the lines of one platform and task_type must each find per_week distinct day and time pairs/,
    );
    assert.deepEqual(await cadence(), stored);
  });
});

/** Every item of a team's partition, as JSON text in order: to show a refused write changed nothing. */
async function partitionItems(teamId: string) {
  return (await teamItems(teamId)).map((item) => JSON.stringify(item)).sort();
}

/** A member whose current activity is the one given (the refusals below each break a rule with it). */
const writer = (current_activity: Record<string, unknown>) => ({
  role: 'writer',
  agent_slug: 'w',
  display_name: 'W',
  persona_name: 'P',
  capabilities: [],
  current_activity,
});

describe('records past their share of the dashboard', () => {
  it('are refused before anything is written: the team, its counters and its lists stay as they were', async () => {
    const team = await createTeam(h);
    const partition = () => partitionItems(team.id);
    const before = await partition();
    const big = 'x'.repeat(380_000); // a DynamoDB item would hold it: 20 of them made a 7.6 MB team read
    const refusals: [Promise<unknown>, RegExp][] = [
      [addMember(team.id, writer({ big })), /Invalid member: \d+ bytes as sent, more than the 1536/],
      [setCanvasLayout(team.id, { big }), /Invalid canvas layout: \d+ bytes as sent, more than the 32768/],
      [
        updateTeam(team.id, { connected_accounts: [big] }),
        /connected_accounts\.0: String should have at most 100/,
      ],
      [
        updateTeam(team.id, { workflow_phase: 'production', connected_accounts: Array(21).fill('x') }),
        /connected_accounts: List should have at most 20 items/,
      ],
      // Control characters weigh 7 bytes each as sent: 230,000 of them pass a task page's 1.5 MiB.
      [
        addTask(team.id, { task_type: 't', title: 't', output_data: { o: '\u0001'.repeat(230_000) } }),
        /Invalid task: \d+ bytes as sent, more than the 1572864/,
      ],
      [
        addTasks(team.id, [
          { task_type: 't', title: 'small' },
          { task_type: 't', title: 't', output_data: { o: '\u0001'.repeat(230_000) } },
        ]),
        /Invalid task/,
      ],
      [
        addActivity(team.id, {
          action_type: 'a',
          description: 'd',
          details: { o: '\u0001'.repeat(160_000) },
        }),
        /Invalid activity entry: \d+ bytes as sent, more than the 1048576/,
      ],
      [
        addCycle(team.id, {
          start_date: '2026-01-01',
          end_date: '2026-01-15',
          content_strategy: { o: '\u0001'.repeat(160_000) },
        }),
        /Invalid strategy cycle/,
      ],
    ];
    for (const [write, refusal] of refusals) await assert.rejects(write, refusal);
    assert.deepEqual(await partition(), before);
  });
});

describe('free JSON the table cannot store', () => {
  it('is refused before anything is written (an empty key, which DynamoDB refuses and dynalite stores; past 16 levels; a __proto__ key)', async () => {
    const team = await createTeam(h);
    const task = await addTask(team.id, { task_type: 't', title: 'kept' });
    const partition = () => partitionItems(team.id);
    const before = await partition();
    // A parsed table's blank column header; JSON nested past DynamoDB's 32 levels; a key the
    // marshaller would turn into a prototype (the value lost).
    const emptyKey = { rows: [{ '': 'x', name: 'y' }] };
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { deep };
    const proto = JSON.parse('{"__proto__": {"a": 1}}');
    const refusals: [Promise<unknown>, RegExp][] = [
      [
        addTask(team.id, { task_type: 't', title: 't', output_data: emptyKey }),
        /Invalid task: output_data: keys must not be empty/,
      ],
      [
        addTask(team.id, { task_type: 't', title: 't', input_data: deep }),
        /Invalid task: input_data: object nests deeper than 16 levels/,
      ],
      [
        addTasks(team.id, [
          { task_type: 't', title: 'ok' },
          { task_type: 't', title: 't', output_data: proto },
        ]),
        /__proto__/,
      ],
      [
        updateTask(team.id, task.id, { output_data: emptyKey }),
        /Invalid task changes: output_data: keys must not be empty/,
      ],
      [addMember(team.id, writer(emptyKey)), /Invalid member: current_activity: keys must not be empty/],
      [
        addActivity(team.id, { action_type: 'a', description: 'd', details: deep }),
        /Invalid activity entry: details/,
      ],
      [
        addCycle(team.id, { start_date: '2026-01-01', end_date: '2026-01-15', content_strategy: emptyKey }),
        /Invalid strategy cycle: content_strategy/,
      ],
      [setCanvasLayout(team.id, emptyKey), /Invalid canvas layout: layout/],
    ];
    for (const [write, refusal] of refusals) await assert.rejects(write, refusal);
    assert.deepEqual(await partition(), before);
  });
});

describe('members', () => {
  const member = (i: number) => ({
    role: 'writer',
    agent_slug: 'social-writer',
    display_name: `Writer ${i}`,
    persona_name: 'Leo',
    capabilities: ['social_post'],
  });
  const storedMembers = async (teamId: string) => (await teamItems(teamId, 'MEMBER#')).length;
  const tooMany = /Invalid member: the team has 100 members, the most the team read shows/;

  it('refuses a 101st member (the team read shows 100), writing nothing, racing adds too', async () => {
    const team = await createTeam(h);
    for (let i = 0; i < 98; i++) await addMember(team.id, member(i));
    const racing = await Promise.allSettled([98, 99, 100, 101].map((i) => addMember(team.id, member(i))));
    assert.deepEqual(racing.map((result) => result.status).sort(), [
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    for (const result of racing)
      if (result.status === 'rejected') assert.match(String(result.reason), tooMany);
    const teamBefore = await getItem(teamKeys.team(team.id));
    await assert.rejects(addMember(team.id, member(102)), tooMany);
    assert.equal(await storedMembers(team.id), 100);
    assert.deepEqual(await getItem(teamKeys.team(team.id)), teamBefore);
    const read = await h.call('GET', `/api/v1/teams/${team.id}`);
    assert.equal(read.body.members.length, 100);
  });

  it('counts the members of a team stored before they were counted, once', async () => {
    const team = await createTeam(h);
    for (let i = 0; i < 100; i++) await addMember(team.id, member(i));
    await updateItem(teamKeys.team(team.id), { remove: ['member_count'] });
    await assert.rejects(addMember(team.id, member(100)), tooMany);
    assert.equal(await storedMembers(team.id), 100);
    assert.equal((await getItem<{ member_count: number }>(teamKeys.team(team.id)))?.member_count, 100);
  });
});

describe('addCycle', () => {
  it('numbers racing cycles 1, 2, 3, reading the latest consistently (a loser must see the winner)', async () => {
    const team = await createTeam(h);
    const dates = { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-15T00:00:00Z' };
    const recorder = recordDynamoRequests();
    const cycles = await Promise.all([1, 2, 3].map(() => addCycle(team.id, dates))).finally(recorder.stop);
    assert.deepEqual(cycles.map((cycle) => cycle.instance_number).sort(), [1, 2, 3]);
    const queries = recorder.requests.filter((request) => request.command === 'QueryCommand');
    assert.ok(queries.length >= 3);
    assert.ok(queries.every((query) => query.input.ConsistentRead === true));
  });
});
