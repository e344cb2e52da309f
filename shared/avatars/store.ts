// Avatar records, the team's pointer to its current avatar, and callback receipts. Every write is a
// single-item conditional write; the record is written after its source video and the provider's job,
// beside the pointer.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../aws/dynamo.ts';
import { nowIso } from '../clock.ts';
import { config } from '../config.ts';
import {
  claimItem,
  deleteItem,
  getItem,
  isConditionFailure,
  putNew,
  queryPartition,
  updateItem,
} from '../db/store.ts';
import { timeOfId } from '../ids.ts';
import { teamKeys } from '../teams/keys.ts';
import type { TeamItem } from '../teams/store.ts';
import { AVATAR_PREFIX, avatarKeys } from './keys.ts';
import { AVATAR_LIMITS, type AvatarStatus } from './schemas.ts';
import { type AvatarStatusValue, statesBefore } from './states.ts';

export interface AvatarItem {
  kind: 'avatar';
  id: string;
  team_id: string;
  /** Who uploaded it (and attested consent). */
  owner: string;
  type: 'studio';
  status: AvatarStatusValue;
  error: string | null;
  source_key: string;
  /** The version of a direct upload that was checked: the provider gets that one, not a later PUT. */
  source_version_id?: string;
  source_content_type: string;
  source_bytes: number;
  consent_key: string;
  /** What the consent URL was signed for: its PUT takes exactly this many bytes. */
  consent_bytes?: number;
  consent_attestation: true;
  consent_attested_by: string;
  consent_attested_at: string;
  subject_is_minor: false;
  provider: string;
  /** When the provider took the job: before the record was written. (Records written before
   * d94d45a have neither field; those of d94d45a up to the commit that wrote it first may hold null.) */
  job_accepted_at?: string | null;
  /** The provider's id of the job (the avatar id when it names none). */
  provider_job_id?: string | null;
  created_at: string;
  updated_at: string;
}

/** Seconds from the avatar's creation to `at`. */
export const ageOf = (avatar: AvatarItem, at: Date) => (at.getTime() - Date.parse(avatar.created_at)) / 1000;

/**
 * Whether an upload may still be writing the avatar `avatarId` names: one whose pointer or report
 * came before its record (the upload writes them in one wave) within `inFlightSeconds` of the time its
 * id was made; past that no upload can still be at work on it.
 */
export const stillInFlight = (avatarId: string, at: Date) => secondsInFlightLeft(avatarId, at) > 0;

/** Seconds until no upload can still be writing the avatar (≤ 0 once none can). An id whose time is
 * further ahead than the window was made by no upload (ours take their upload's time, on clocks
 * milliseconds apart; a v4 UUID's random bits mostly read as a time centuries ahead): none. */
export const secondsInFlightLeft = (avatarId: string, at: Date) => {
  const age = (at.getTime() - timeOfId(avatarId)) / 1000;
  return age > -AVATAR_LIMITS.inFlightSeconds ? AVATAR_LIMITS.inFlightSeconds - age : 0;
};

export const toAvatarStatus = (
  avatar: AvatarItem,
  consentReceived: boolean,
  consent?: { url: string; headers: Record<string, string> },
): AvatarStatus => ({
  avatar_id: avatar.id,
  status: avatar.status,
  type: avatar.type,
  consent_received: consentReceived,
  created_at: avatar.created_at,
  updated_at: avatar.updated_at,
  error: avatar.status === 'failed' ? (avatar.error ?? null) : null,
  consent_url: consent?.url ?? null,
  consent_headers: consent?.headers ?? null,
});

export const readAvatar = (teamId: string, avatarId: string) =>
  getItem<AvatarItem>(avatarKeys.avatar(teamId, avatarId));

/**
 * The team and its avatar, in one wave on the common path: the team item and the newest avatar record
 * are read together; only when the newest is not the one the pointer names (an upload in flight, or
 * one that lost a race) does a second read fetch that one. A pointer naming no record (an upload in
 * flight, or one whose take-back failed) gives the avatar the team had before it, which the pointer
 * write kept (`previous_avatar_id`): read with the first wave when it is the newest, as it is after a
 * failed take-back. A poll right after a 202 (or the next upload) sees that upload, not the avatar
 * before it: table reads are consistent.
 */
export async function readTeamAvatar(teamId: string): Promise<{ team?: TeamItem; avatar?: AvatarItem }> {
  const [team, newest] = await Promise.all([
    getItem<TeamItem>(teamKeys.team(teamId)),
    queryPartition<AvatarItem>(teamKeys.partition(teamId), {
      prefix: AVATAR_PREFIX,
      newestFirst: true,
      limit: 1,
    }),
  ]);
  const recordOf = async (avatarId: string | null | undefined) => {
    if (!avatarId) return undefined;
    const latest = newest[0];
    if (latest?.id === avatarId) return latest;
    // Sorting after the newest record (a consistent read of the highest key): it has none.
    if (!latest || avatarId > latest.id) return undefined;
    return readAvatar(teamId, avatarId);
  };
  if (!team?.current_avatar_id) return { team };
  const avatar = (await recordOf(team.current_avatar_id)) ?? (await recordOf(team.previous_avatar_id));
  return { team, avatar };
}

export const createAvatar = (avatar: AvatarItem) =>
  putNew({ ...avatarKeys.avatar(avatar.team_id, avatar.id), ...avatar });

export const deleteAvatar = (teamId: string, avatarId: string) =>
  deleteItem(avatarKeys.avatar(teamId, avatarId));

/** Where the pointer write left the team: moved to this upload's avatar, or else the avatar another
 * upload moved it to first (that one is now training or still being written: this upload conflicts). */
export type PointerWrite = { moved: true } | { moved: false; named?: string };

/** Moves the team's pointer from `seen` (what the upload read, or none) to `next`, keeping `had` (the
 * avatar the team had, which `seen` names unless it names no record) as the one to fall back to. */
export async function pointTeamAtAvatar(
  teamId: string,
  seen: string | undefined,
  next: string,
  had: string | undefined,
): Promise<PointerWrite> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: teamKeys.team(teamId),
        ConditionExpression: seen
          ? 'current_avatar_id = :seen'
          : 'attribute_exists(pk) AND (attribute_not_exists(current_avatar_id) OR attribute_type(current_avatar_id, :null))',
        UpdateExpression: had
          ? 'SET current_avatar_id = :next, previous_avatar_id = :had, updated_at = :at'
          : 'SET current_avatar_id = :next, updated_at = :at REMOVE previous_avatar_id',
        ExpressionAttributeValues: {
          ':next': next,
          ':at': nowIso(),
          ...(seen ? { ':seen': seen } : { ':null': 'NULL' }),
          ...(had ? { ':had': had } : {}),
        },
      }),
    );
    return { moved: true };
  } catch (error) {
    // `next` is a new avatar's id: a pointer naming it is this update's, whose first answer was lost;
    // the SDK's resends then failed the condition its first attempt had changed, or failed outright
    // (a 500, a timeout), which says nothing of whether it landed. Either way the pointer is read back.
    let team: Pick<TeamItem, 'current_avatar_id'> | undefined;
    try {
      team = await getItem(teamKeys.team(teamId));
    } catch (readError) {
      throw isConditionFailure(error) ? readError : error;
    }
    if (team?.current_avatar_id === next) return { moved: true };
    if (!isConditionFailure(error)) throw error;
    return { moved: false, named: team?.current_avatar_id ?? undefined };
  }
}

/** Moves the team's pointer back from `ours` to `had` (or none): an upload whose other writes failed
 * gives the team back the avatar it had. Nothing when the pointer no longer names `ours`. */
export const unpointTeam = (teamId: string, ours: string, had: string | undefined) =>
  // Refused (not ours any more, or never; a resend whose first attempt landed): nothing to give back.
  updateItem(teamKeys.team(teamId), {
    expect: { current_avatar_id: ours },
    set: { current_avatar_id: had, updated_at: nowIso() },
    remove: had ? undefined : ['current_avatar_id'],
  });

export interface Move {
  /** Whether this call moved the avatar. */
  moved: boolean;
  /** The avatar as it is now (undefined when there is none). */
  avatar?: AvatarItem;
}

/** The one way an avatar changes state: a conditional write from the states the machine allows
 * before `to`. A move the machine forbids (e.g. back to `training`) writes nothing. */
export async function moveAvatar(
  teamId: string,
  avatarId: string,
  to: AvatarStatusValue,
  error: string | null = null,
): Promise<Move> {
  const from = statesBefore(to);
  if (from.length === 0) return { moved: false, avatar: await readAvatar(teamId, avatarId) };
  const at = nowIso();
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: avatarKeys.avatar(teamId, avatarId),
        ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
        UpdateExpression: 'SET #status = :to, #error = :error, updated_at = :at',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':to': to,
          ':error': to === 'failed' ? error : null,
          ':at': at,
          ...Object.fromEntries(from.map((state, i) => [`:from${i}`, state])),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { moved: true, avatar: Attributes as AvatarItem };
  } catch (failure) {
    // Refused (moved before, or this move's resend after its answer was lost), or failed outright (a
    // 500, a timeout), which says nothing of whether it landed: the avatar is read back, as
    // pointTeamAtAvatar reads its pointer. Still in a state before `to`, it was not moved.
    let avatar: AvatarItem | undefined;
    try {
      avatar = await readAvatar(teamId, avatarId);
    } catch (readError) {
      throw isConditionFailure(failure) ? readError : failure;
    }
    if (!isConditionFailure(failure) && (!avatar || from.includes(avatar.status))) throw failure;
    // Moved by this call where the avatar carries its time.
    return { moved: avatar?.status === to && avatar.updated_at === at, avatar };
  }
}

/** A signed message's receipt: the record of a provider message, and what tells its replay. */
export interface CallbackReceipt {
  /** The delivery that wrote it (a request of ours), which tells its own write from an earlier one. */
  delivery: string;
  received_at: string;
  event_id: string;
  team_id: string;
  avatar_id: string;
  status: string;
}

/**
 * Records this delivery of a signed message. Undefined when it is the first (its own write, even one
 * whose answer was lost and whose resends then failed), else the receipt found.
 */
export async function recordCallbackReceipt(
  messageId: string,
  receipt: CallbackReceipt,
): Promise<CallbackReceipt | undefined> {
  const keys = avatarKeys.callbackReceipt(messageId);
  const claimed = await claimItem<CallbackReceipt>({ ...keys, kind: 'avatar_callback', ...receipt }).catch(
    async (failure) => {
      // Failed outright (a 500, a timeout), the write may have landed with its answer lost: a receipt
      // naming this delivery, read back, is its own (as pointTeamAtAvatar reads its pointer).
      const found = await getItem<CallbackReceipt>(keys).catch(() => undefined);
      if (found?.delivery === receipt.delivery) return { won: true as const };
      throw failure;
    },
  );
  return claimed.won || claimed.existing.delivery === receipt.delivery ? undefined : claimed.existing;
}
