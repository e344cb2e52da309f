import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { resetDynamo } from '../../shared/aws/dynamo.ts';
import { setClock } from '../../shared/clock.ts';
import { getItem } from '../../shared/db/store.ts';
import { updateTeam } from '../../shared/teams/agents.ts';
import { teamKeys } from '../../shared/teams/keys.ts';
import type { TeamItem } from '../../shared/teams/store.ts';
import { dynamoRequestsOf } from '../support/aws-requests.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { clearFaults, inject } from '../support/sdk-faults.ts';
import { createTeam } from './fixtures.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
// A fresh client after a fault: a failing write drains the SDK's retry quota, shared by every request.
afterEach(() => {
  clearFaults();
  resetDynamo();
});
after(async () => {
  setClock(undefined);
  await h.close();
});

const unsubscribe = (teamId: string) => h.call('POST', `/api/v1/teams/${teamId}/unsubscribe`);
/** The team item as stored. */
const stored = (teamId: string) => getItem<TeamItem>(teamKeys.team(teamId));

describe('unsubscribe', () => {
  it('cancels at the end of the paid month and answers the team detail without the dashboard fields', async () => {
    setClock(new Date('2026-01-31T10:00:00Z'));
    const team = await createTeam(h);
    await updateTeam(team.id, { hired_at: '2026-01-31T10:00:00Z', payments_subscription_id: 'sub_1' });
    setClock(new Date('2026-03-05T08:00:00Z'));
    const res = await unsubscribe(team.id);
    assert.equal(res.status, 200);
    const { members, recent_activity, content_cadence, ...detail } = team as Record<string, unknown>;
    assert.deepEqual([members, recent_activity, content_cadence], [[], [], []]);
    assert.deepEqual(res.body, {
      ...detail,
      status: 'cancelled',
      updated_at: '2026-03-05T08:00:00.000Z',
      payments_subscription_id: 'sub_1',
      hired_at: '2026-01-31T10:00:00.000Z',
      cancelled_at: '2026-03-05T08:00:00.000Z',
      // Periods from 31 January: 28 February, 31 March (the hiring day, clamped to each month).
      subscription_ends_at: '2026-03-31T10:00:00.000Z',
    });
    const read = await h.call('GET', `/api/v1/teams/${team.id}`);
    assert.equal(read.body.subscription_ends_at, '2026-03-31T10:00:00.000Z');
    const activity = await h.call('GET', `/api/v1/teams/${team.id}/activity`);
    assert.equal(activity.body.total, 1);
    assert.deepEqual(activity.body.activity[0], {
      id: activity.body.activity[0].id,
      action_type: 'team_unsubscribed',
      description: 'Subscription cancelled; the team works until 2026-03-31T10:00:00.000Z',
      source: 'user',
      severity: 'warning',
      details: { cancelled_at: '2026-03-05T08:00:00.000Z', subscription_ends_at: '2026-03-31T10:00:00.000Z' },
      member_id: null,
      team_task_id: null,
      created_at: '2026-03-05T08:00:00.000Z',
    });
  });

  it('counts the paid month in the team’s zone', async () => {
    // Hired at 00:30 on 31 January in Kolkata (+05:30), which is 19:00 UTC on the 30th.
    setClock(new Date('2026-01-30T19:00:00Z'));
    const team = await createTeam(h, { config: { timezone: 'Asia/Kolkata' } });
    await updateTeam(team.id, { hired_at: '2026-01-30T19:00:00Z' });
    setClock(new Date('2026-02-10T08:00:00Z'));
    const res = await unsubscribe(team.id);
    // 00:30 on 28 February there; the UTC hiring day (the 30th) gave 28 February 19:00 UTC, 1 March there.
    assert.equal(res.body.subscription_ends_at, '2026-02-27T19:00:00.000Z');
    const read = await h.call('GET', `/api/v1/teams/${team.id}`);
    assert.equal(read.body.subscription_ends_at, '2026-02-27T19:00:00.000Z');
  });

  it('ends now when the team has no subscription', async () => {
    setClock(new Date('2026-04-01T12:00:00Z'));
    const team = await createTeam(h);
    const res = await unsubscribe(team.id);
    assert.equal(res.body.cancelled_at, '2026-04-01T12:00:00.000Z');
    assert.equal(res.body.subscription_ends_at, '2026-04-01T12:00:00.000Z');
  });

  it('repeated calls answer the same timestamps and change nothing', async () => {
    setClock(new Date('2026-04-01T12:00:00Z'));
    const team = await createTeam(h);
    await updateTeam(team.id, { hired_at: '2026-03-15T00:00:00Z' });
    const first = await unsubscribe(team.id);
    setClock(new Date('2026-04-02T12:00:00Z'));
    const { result: second, commands } = await dynamoRequestsOf(() => unsubscribe(team.id));
    assert.equal(second.status, 200);
    assert.equal(second.text, first.text);
    assert.equal(first.body.subscription_ends_at, '2026-04-15T00:00:00.000Z');
    // The refused conditional update, one read, and the entry's put, refused where it is: no change.
    assert.deepEqual(commands, ['UpdateItemCommand', 'GetItemCommand', 'PutItemCommand']);
    const activity = await h.call('GET', `/api/v1/teams/${team.id}/activity`);
    assert.equal(activity.body.total, 1);
    assert.equal(activity.body.activity.length, 1);
  });

  it('20 concurrent calls agree on one cancelled_at and write one activity entry', async () => {
    setClock(undefined);
    const team = await createTeam(h);
    await updateTeam(team.id, { hired_at: new Date(Date.now() - 10 * 86_400_000).toISOString() });
    const results = await Promise.all(Array.from({ length: 20 }, () => unsubscribe(team.id)));
    assert.ok(results.every((res) => res.status === 200));
    assert.equal(new Set(results.map((res) => res.body.cancelled_at)).size, 1);
    assert.equal(new Set(results.map((res) => res.body.subscription_ends_at)).size, 1);
    assert.equal(new Set(results.map((res) => res.body.updated_at)).size, 1);
    const activity = await h.call('GET', `/api/v1/teams/${team.id}/activity`);
    assert.equal(activity.body.total, 1);
    assert.equal(activity.body.activity.length, 1);
  });

  it('a failed write of the end date answers 503, and the retry stores it', async () => {
    setClock(new Date('2026-04-01T12:00:00Z'));
    const team = await createTeam(h);
    await updateTeam(team.id, { hired_at: '2026-03-15T00:00:00Z' });
    inject('dynamo', {
      commands: /^UpdateItem/,
      about: 'subscription_ends_at',
      failing: () => true,
      kind: 'server',
    });
    const failed = await unsubscribe(team.id);
    clearFaults();
    assert.equal(failed.status, 503, failed.text);
    assert.equal((await stored(team.id))?.subscription_ends_at, null);
    const retry = await unsubscribe(team.id);
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.body.subscription_ends_at, '2026-04-15T00:00:00.000Z');
    assert.equal((await stored(team.id))?.subscription_ends_at, '2026-04-15T00:00:00.000Z');
  });

  it('tries again when the status changed between the refused update and the read', async () => {
    setClock(new Date('2026-04-01T12:00:00Z'));
    const team = await createTeam(h);
    // The cancelling update is refused once, as when another writer had the team cancelled then and
    // changed its status back before our read: the read finds it active, so the call tries again.
    const update = inject('dynamo', {
      commands: /^UpdateItem/,
      about: ':cancelled',
      failing: (n) => n === 1,
      kind: 'condition',
    });
    const res = await unsubscribe(team.id);
    clearFaults();
    assert.equal(res.status, 200, res.text);
    assert.equal(update.attempts(), 2);
    assert.deepEqual([res.body.status, res.body.cancelled_at], ['cancelled', '2026-04-01T12:00:00.000Z']);
    assert.equal((await stored(team.id))?.status, 'cancelled');
    const activity = await h.call('GET', `/api/v1/teams/${team.id}/activity`);
    assert.equal(activity.body.total, 1);
  });

  it('takes at most two sequential rounds', async () => {
    const team = await createTeam(h);
    const { result, waves } = await dynamoRequestsOf(() => unsubscribe(team.id));
    assert.equal(result.status, 200);
    assert.equal(waves, 2);
  });
});
