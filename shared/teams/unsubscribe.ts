// Spec 9, unsubscribe. One conditional update moves the team to `cancelled` (only if it is not
// already), so repeated and concurrent calls agree on one `cancelled_at`; then the activity entry and
// the end of the paid period are written. Both are the same for every call (the entry's id comes from
// the team and `cancelled_at`), so every call writes them where they are missing: a winner whose second
// wave failed, or whose first write landed but whose answer was lost (the SDK's resend then finds the
// team cancelled), leaves them to the retry. Nothing stored tells a finished cancellation from one
// whose entry failed, so a repeated call puts the entry again (refused where it is, changing nothing):
// two waves for the first call, three for a repeated one (the update, the read, the put).
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../aws/dynamo.ts';
import { nowIso } from '../clock.ts';
import { config } from '../config.ts';
import { getItem, isConditionFailure, ownedBy, putNew, updateItem } from '../db/store.ts';
import { stableIdAt } from '../ids.ts';
import { activityItem } from './agents.ts';
import { teamKeys } from './keys.ts';
import { CANCELLED, type TeamDetail } from './schemas.ts';
import { subscriptionEnd, type TeamItem, toTeamDetail } from './store.ts';

export async function unsubscribeTeam(userId: string, teamId: string, attempt = 1): Promise<TeamDetail> {
  const at = nowIso();
  let cancelled: TeamItem;
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: teamKeys.team(teamId),
        ConditionExpression: 'attribute_exists(pk) AND #owner = :owner AND #status <> :cancelled',
        UpdateExpression:
          'SET #status = :cancelled, cancelled_at = :at, updated_at = :at ADD activity_count :one',
        ExpressionAttributeNames: { '#owner': 'owner', '#status': 'status' },
        ExpressionAttributeValues: { ':owner': userId, ':cancelled': CANCELLED, ':at': at, ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    cancelled = Attributes as TeamItem;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Missing, someone else's, or already cancelled (by an earlier or a racing call, or by this one).
    const team = ownedBy(await getItem<TeamItem>(teamKeys.team(teamId)), userId, 'Team');
    if (team.status === CANCELLED)
      return team.cancelled_at ? completeCancellation(teamId, team) : toTeamDetail(team);
    if (attempt >= 3) return toTeamDetail(team);
    // Only another writer changing the status between our two requests lands here: try again.
    return unsubscribeTeam(userId, teamId, attempt + 1);
  }
  return completeCancellation(teamId, cancelled);
}

/** The activity entry and the stored end of the paid period of a cancelled team, each written once. */
async function completeCancellation(teamId: string, team: TeamItem): Promise<TeamDetail> {
  const at = team.cancelled_at!;
  const endsAt = team.subscription_ends_at ?? subscriptionEnd(team, at);
  const activity = {
    ...activityItem(teamId, {
      action_type: 'team_unsubscribed',
      description: `Subscription cancelled; the team works until ${endsAt}`,
      source: 'user',
      severity: 'warning',
      details: { cancelled_at: at, subscription_ends_at: endsAt },
      created_at: at,
    }),
    id: stableIdAt(new Date(at), `${teamId}/unsubscribed/${at}`),
  };
  // Both settle before anything is answered: neither lands after the 503.
  const [entry, end] = await Promise.allSettled([
    // Counted by the update that cancelled the team.
    putNew({ ...teamKeys.activity(teamId, activity.id), ...activity }),
    team.subscription_ends_at ??
      updateItem(teamKeys.team(teamId), { set: { subscription_ends_at: endsAt }, exists: ['pk'] }),
  ]);
  if (entry.status === 'rejected') throw entry.reason;
  if (end.status === 'rejected') throw end.reason;
  return toTeamDetail({ ...team, subscription_ends_at: endsAt });
}
