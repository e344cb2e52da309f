// Chat sessions and messages. Every send is one conditional PutItem of its own `MSG#<uuidv7>` item:
// concurrent sends never contend on a shared counter, and the ids keep them in order. The answering
// agent lives outside this service and reads new messages from the table's stream.
import { setTimeout } from 'node:timers/promises';
import { listOwned, type OwnerPage } from '../db/owner-lists.ts';
import {
  claimSetMembers,
  deleteItem,
  getItem,
  memberToken,
  ownedBy,
  putNew,
  queryAfter,
  queryPartition,
  releaseSetMembers,
  updateItem,
} from '../db/store.ts';
import { ConflictError, ServiceUnavailableError } from '../http/errors.ts';
import { createOnce, type Identity, newIdentity, ownClaim } from '../idempotency.ts';
import { projectKeys } from '../projects/keys.ts';
import { teamKeys } from '../teams/keys.ts';
import { documentNamesOf } from './content-blocks.ts';
import { chatKeys, MESSAGE_PREFIX } from './keys.ts';
import {
  CHAT_LIMITS,
  type ChatMessage,
  type ChatMessagePage,
  type ChatSession,
  type ContentBlock,
  type CreateChatSessionInput,
  type ListMessagesInput,
} from './schemas.ts';

export const SESSION_RESOURCE = 'Chat session';
export const SESSION_DOCUMENTS_FULL = `This chat session holds its limit of ${CHAT_LIMITS.sessionDocuments} documents; start a new session to attach more`;

export interface ChatSessionItem extends ChatSession {
  kind: 'chat_session';
  owner: string;
  /** Sessions before the names moved to their own item (chatKeys.documentNames) keep theirs here. */
  document_names?: Set<string>;
  document_name_owners?: Set<string>;
}

/** The session's document names (chatKeys.documentNames), made by its first document. */
interface DocumentNamesItem {
  kind: 'chat_document_names';
  /** Every document name the session's messages hold, lower-case: a new document's must differ. */
  document_names?: Set<string>;
  /** Which message holds each of those names: `<message id>:<hash of the name>` (claimSetMembers). */
  document_name_owners?: Set<string>;
}

interface ChatMessageItem extends ChatMessage {
  kind: 'chat_message';
}

const toSession = (item: ChatSessionItem): ChatSession => ({
  id: item.id,
  title: item.title,
  team_id: item.team_id,
  project_id: item.project_id,
  created_at: item.created_at,
});

const toMessage = (item: ChatMessage): ChatMessage => ({
  id: item.id,
  session_id: item.session_id,
  role: item.role,
  content: item.content,
  created_at: item.created_at,
});

/**
 * A team or project, when named, must be the caller's: both are read in the first wave (beside the
 * claim of an Idempotency-Key, whose retry answers the session the first attempt made), the session
 * written in the second.
 */
export const createChatSession = (
  userId: string,
  input: CreateChatSessionInput,
  key?: string,
): Promise<ChatSession> =>
  createOnce({
    claimAt: ownClaim(userId, 'chat-session', key),
    request: input,
    check: async () => {
      const [team, project] = await Promise.all([
        input.team_id ? getItem<{ owner?: string }>(teamKeys.team(input.team_id)) : undefined,
        input.project_id ? getItem<{ owner?: string }>(projectKeys.project(input.project_id)) : undefined,
      ]);
      // Judged in the body's order once both are read: with both not the caller's, the same 404
      // whichever read answers first.
      if (input.team_id) ownedBy(team, userId, 'Team');
      if (input.project_id) ownedBy(project, userId, 'Project');
    },
    write: async ({ id, created_at }) => {
      const item: ChatSessionItem = {
        kind: 'chat_session',
        id,
        owner: userId,
        title: input.title,
        team_id: input.team_id,
        project_id: input.project_id,
        created_at,
      };
      await putNew({ ...chatKeys.session(id), ...chatKeys.byOwner(userId, id), ...item });
      return toSession(item);
    },
    read: async (id) => {
      const item = await readSession(id);
      return item && toSession(item);
    },
  });

/** The caller's chat sessions, newest first. */
export const listChatSessions = (userId: string, page: OwnerPage): Promise<ChatSession[]> =>
  listOwned({ partition: chatKeys.ownerPartition(userId), prefix: chatKeys.ownerPrefix }, page, toSession);

export const readSession = (sessionId: string) => getItem<ChatSessionItem>(chatKeys.session(sessionId));

/** The session as a send reads it: `document_names` every name its messages hold, and `kept_names`
 * how many of them only the session item keeps (from before the names moved; those no longer grow). */
export interface SessionWithNames extends ChatSessionItem {
  kept_names: number;
}

/** The session item with every document name its messages hold (its names item's, and any it stored
 * itself before they moved), in one Query (`NAMES` to `SESSION`). */
export async function readSessionWithNames(sessionId: string): Promise<SessionWithNames | undefined> {
  const [namesKeys, sessionKeys] = [chatKeys.documentNames(sessionId), chatKeys.session(sessionId)];
  const items = await queryPartition<(ChatSessionItem | DocumentNamesItem) & { sk: string }>(
    chatKeys.partition(sessionId),
    { between: [namesKeys.sk, sessionKeys.sk], limit: 2 },
  );
  const session = items.find((item) => item.sk === sessionKeys.sk) as ChatSessionItem | undefined;
  const held = items.find((item) => item.sk === namesKeys.sk) as DocumentNamesItem | undefined;
  if (!session) return undefined;
  const names = new Set([...(session.document_names ?? []), ...(held?.document_names ?? [])]);
  const owners = new Set([...(session.document_name_owners ?? []), ...(held?.document_name_owners ?? [])]);
  // Only those the names item lacks: the claim's room counts the names item's own (claimDocumentNames).
  const kept_names = names.size - (held?.document_names?.size ?? 0);
  return {
    ...session,
    document_names: names.size > 0 ? names : undefined,
    document_name_owners: owners.size > 0 ? owners : undefined,
    kept_names,
  };
}

/**
 * The session's names as message `messageId` chooses its own: those it holds already are not taken.
 * Only a twin request (the same Idempotency-Key, so the same message id) finds any: read after its
 * first request's claim landed, it would otherwise choose other names than the stored message's and
 * leave them held by no message.
 */
export function namesTakenFrom(
  session: SessionWithNames | undefined,
  messageId: string,
): ReadonlySet<string> | undefined {
  const [names, owners] = [session?.document_names, session?.document_name_owners];
  const own = `${messageId}:`;
  // The owners scan is cheap; a name's hash is taken only when the message holds some.
  if (!names || !owners || ![...owners].some((token) => token.startsWith(own))) return names;
  return new Set([...names].filter((name) => !owners.has(memberToken(messageId, name))));
}

/** Whether `taken` (a session's names, as read) leaves room for `documents` more within its limit
 * (CHAT_LIMITS.sessionDocuments; else 409 SESSION_DOCUMENTS_FULL). The claim of the names holds it
 * against sends at the same moment (claimDocumentNames). */
export const hasRoomFor = (taken: ReadonlySet<string> | undefined, documents: number) =>
  documents === 0 || (taken?.size ?? 0) + documents <= CHAT_LIMITS.sessionDocuments;

export async function getOwnedSession(userId: string, sessionId: string): Promise<ChatSessionItem> {
  return ownedBy(await readSession(sessionId), userId, SESSION_RESOURCE);
}

/** Oldest first, `limit` per page; one wave (the session check runs beside the Query, whose later
 * pages, where DynamoDB ends one early, wait for it). */
export async function listMessages(
  userId: string,
  sessionId: string,
  page: ListMessagesInput,
): Promise<ChatMessagePage> {
  const checked = getOwnedSession(userId, sessionId);
  const [, found] = await Promise.all([
    checked,
    queryAfter<ChatMessageItem>(chatKeys.partition(sessionId), {
      prefix: MESSAGE_PREFIX,
      limit: page.limit,
      after: page.after ? chatKeys.message(sessionId, page.after).sk : undefined,
      checked,
    }),
  ]);
  return { messages: found.items.map(toMessage), next_after: found.nextAfter };
}

const newMessage = (
  sessionId: string,
  role: ChatMessage['role'],
  content: ContentBlock[],
  identity: Identity = newIdentity(),
): ChatMessage => ({
  id: identity.id,
  session_id: sessionId,
  role,
  content,
  created_at: identity.created_at,
});

/** false when the message is there already (written by a request with the same Idempotency-Key). */
const putMessage = (message: ChatMessage) =>
  putNew({ ...chatKeys.message(message.session_id, message.id), kind: 'chat_message', ...message });

export const readMessage = async (sessionId: string, messageId: string) => {
  const item = await getItem<ChatMessageItem>(chatKeys.message(sessionId, messageId));
  return item && toMessage(item);
};

/** Where the names item keeps a session's document names and which message holds each. */
const NAME_SETS = { set: 'document_names', owners: 'document_name_owners' };

/** Rounds of choosing a message's document names again after other sends took them first; after
 * PLAIN_NAME_ROUNDS, the names carry a mark of the message's own (documentName), which other sends
 * do not choose. */
const NAME_ROUNDS = 5;
const PLAIN_NAME_ROUNDS = 3;

/**
 * Claims a message's document names in the session: added on the condition that no other message
 * holds one (the same message may claim again: a twin request with its Idempotency-Key), and that the
 * session's limit holds with them, counting the `kept` names its own item holds (sends at the same
 * moment that each read room for theirs cannot all land). false when another send took one of the
 * names, or the last places, since this one read the session.
 */
const claimDocumentNames = (sessionId: string, message: ChatMessage, kept: number) => {
  const names = documentNamesOf(message.content);
  return names.length === 0
    ? true
    : claimSetMembers(
        chatKeys.documentNames(sessionId),
        NAME_SETS,
        names,
        message.id,
        { kind: 'chat_document_names' },
        CHAT_LIMITS.sessionDocuments - kept,
      );
};

/** The message's blocks, its document names unique among `taken` (the session's, lower-case), marked
 * with `mark` when given (documentName). */
export type BlocksFor = (taken: ReadonlySet<string> | undefined, mark?: string) => ContentBlock[];

/**
 * Stores a user's message under `identity` (with an Idempotency-Key, its claim's id and time). Written with
 * `attribute_not_exists` beside the claim of its document names (chosen against the session as read):
 * two waves in all. When a twin request of the same claim wrote it first, the stored one is answered.
 * When another send took one of the names (or the session's last places) since the session was read,
 * they are chosen again, or the message taken back (renameDocuments). `keyed`: sent with an
 * Idempotency-Key, whose retry writes the message under the same id.
 */
export async function storeUserMessage(
  session: SessionWithNames,
  blocksFor: BlocksFor,
  identity: Identity,
  keyed: boolean,
): Promise<ChatMessage> {
  const [sessionId, kept] = [session.id, session.kept_names];
  const message = newMessage(sessionId, 'user', blocksFor(namesTakenFrom(session, identity.id)), identity);
  // The message deleted, best effort. Once it is gone, a send without a key gives back the names it
  // claimed (no request writes its id again); a keyed retry claims them again as its own, so they stay.
  const takeBack = async () => {
    const gone = await deleteItem(chatKeys.message(sessionId, message.id)).catch(() => false);
    if (gone && !keyed && documentNamesOf(message.content).length > 0)
      await releaseSetMembers(chatKeys.documentNames(sessionId), NAME_SETS, message.id).catch(
        () => undefined,
      );
  };
  // Both settle before anything is answered: a failed claim must not leave the put landing after it.
  const [put, claim] = await Promise.allSettled([
    putMessage(message),
    claimDocumentNames(sessionId, message, kept),
  ]);
  if (put.status === 'rejected') {
    // Its claim may have landed, and the put too (its answer lost): without a key, both go back. A
    // keyed message may be a twin's, written under the same id: it stays for the retry to answer.
    if (!keyed) await takeBack();
    throw put.reason;
  }
  if (put.value) {
    // Ours is written. Should its names fail to be claimed (a fault), it goes again: a message left
    // holding names the session does not hold would let a later document take one of them (and
    // Converse refuse every later turn); the keyed retry writes it anew and claims them.
    try {
      if (claim.status === 'rejected') throw claim.reason;
      return claim.value ? message : await renameDocuments(message, blocksFor);
    } catch (error) {
      await takeBack();
      throw error;
    }
  }
  if (claim.status === 'rejected') throw claim.reason;
  const named = claim.value;
  // The twin's message holds the names its own session read gave: those are the ones to claim.
  const stored = (await readMessage(sessionId, message.id)) ?? message;
  const same = documentNamesOf(stored.content).join('\n') === documentNamesOf(message.content).join('\n');
  if ((same && named) || (!same && (await claimDocumentNames(sessionId, stored, kept)))) return stored;
  return renameDocuments(stored, blocksFor);
}

/**
 * Two sends at the same moment read the session before either claimed, and chose the same name: the
 * one that lost the claim chooses again from the session as it is now, claims, and rewrites its
 * message with those names before answering (the stream then carries the message's INSERT and a
 * MODIFY; a read and a claim a round, then the rewrite, on this path only). Many sends of one name
 * keep overtaking each other, so from the fourth round the names carry the message's mark (the last
 * six hex digits of its id). Lost NAME_ROUNDS times all the same, the message is deleted and the
 * client asked to retry, so none is left holding a name another message holds. A claim lost for room
 * (other sends took the last places) is no clash: the session as it is now has none (only a failed
 * send without a key gives names back; where one did meanwhile, the places it freed are claimed), so
 * the message is deleted and the send answers the limit's 409, as one that read it full.
 */
async function renameDocuments(message: ChatMessage, blocksFor: BlocksFor): Promise<ChatMessage> {
  const keys = chatKeys.message(message.session_id, message.id);
  const mark = message.id.replaceAll('-', '').slice(-6);
  const documents = documentNamesOf(message.content).length;
  for (let round = 1; round <= NAME_ROUNDS; round++) {
    // Sends that lost together would choose the same next name again: a random pause apart.
    await setTimeout(Math.random() * 20 * round);
    const session = await readSessionWithNames(message.session_id);
    const taken = namesTakenFrom(session, message.id);
    if (!hasRoomFor(taken, documents)) {
      await deleteItem(keys);
      throw new ConflictError(SESSION_DOCUMENTS_FULL);
    }
    const renamed = { ...message, content: blocksFor(taken, round > PLAIN_NAME_ROUNDS ? mark : undefined) };
    if (await claimDocumentNames(message.session_id, renamed, session?.kept_names ?? 0)) {
      await updateItem(keys, { set: { content: renamed.content }, exists: ['id'] });
      return renamed;
    }
  }
  await deleteItem(keys);
  throw new ServiceUnavailableError();
}

/** The answering agent's write path (and the seed's): a reply in the session. */
export async function addAssistantMessage(sessionId: string, text: string): Promise<ChatMessage> {
  const message = newMessage(sessionId, 'assistant', [{ text }]);
  await putMessage(message);
  return message;
}
