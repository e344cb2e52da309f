// Chat sessions and messages. Every send is one conditional PutItem of its own `MSG#<uuidv7>` item:
// concurrent sends never contend on a shared counter, and the ids keep them in order. The answering
// agent lives outside this service and reads new messages from the table's stream.
import { nowIso } from '../clock.ts';
import { getItem, ownedBy, putNew, queryPartition } from '../db/store.ts';
import { ConflictError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { projectKeys } from '../projects/keys.ts';
import { teamKeys } from '../teams/keys.ts';
import type { ContentBlock } from './content-blocks.ts';
import { chatKeys, MESSAGE_PREFIX } from './keys.ts';
import type {
  ChatMessage,
  ChatMessagePage,
  ChatSession,
  CreateChatSessionInput,
  ListMessagesInput,
} from './schemas.ts';

export const SESSION_RESOURCE = 'Chat session';

export interface ChatSessionItem extends ChatSession {
  kind: 'chat_session';
  owner: string;
}

interface ChatMessageItem extends ChatMessage {
  kind: 'chat_message';
}

interface IdempotencyItem {
  kind: 'chat_idempotency';
  key: string;
  /** What the first request asked for: the same key with another request is a conflict. */
  fingerprint: string;
  message: ChatMessage;
  created_at: string;
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

/** A team or project named in the body must be the caller's, like any path id. */
const ownedReference = async (userId: string, keys: { pk: string; sk: string }, resource: string) =>
  ownedBy(await getItem<{ owner?: string }>(keys), userId, resource);

export async function createChatSession(userId: string, input: CreateChatSessionInput): Promise<ChatSession> {
  await Promise.all([
    input.team_id && ownedReference(userId, teamKeys.team(input.team_id), 'Team'),
    input.project_id && ownedReference(userId, projectKeys.project(input.project_id), 'Project'),
  ]);
  const id = newId();
  const item: ChatSessionItem = {
    kind: 'chat_session',
    id,
    owner: userId,
    title: input.title,
    team_id: input.team_id,
    project_id: input.project_id,
    created_at: nowIso(),
  };
  await putNew({ ...chatKeys.session(id), ...chatKeys.byOwner(userId, id), ...item });
  return toSession(item);
}

export const readSession = (sessionId: string) => getItem<ChatSessionItem>(chatKeys.session(sessionId));

export async function getOwnedSession(userId: string, sessionId: string): Promise<ChatSessionItem> {
  return ownedBy(await readSession(sessionId), userId, SESSION_RESOURCE);
}

/** Oldest first, `limit` per page; one wave (the session check runs beside the Query). */
export async function listMessages(
  userId: string,
  sessionId: string,
  page: ListMessagesInput,
): Promise<ChatMessagePage> {
  const [session, items] = await Promise.all([
    readSession(sessionId),
    queryPartition<ChatMessageItem>(chatKeys.partition(sessionId), {
      prefix: MESSAGE_PREFIX,
      limit: page.limit + 1,
      startAfter: page.after ? chatKeys.message(sessionId, page.after).sk : undefined,
    }),
  ]);
  ownedBy(session, userId, SESSION_RESOURCE);
  const messages = items.slice(0, page.limit).map(toMessage);
  return { messages, next_after: items.length > page.limit ? (messages.at(-1)?.id ?? null) : null };
}

const newMessage = (sessionId: string, role: ChatMessage['role'], content: ContentBlock[]): ChatMessage => ({
  id: newId(),
  session_id: sessionId,
  role,
  content,
  created_at: nowIso(),
});

const putMessage = (message: ChatMessage) =>
  putNew({ ...chatKeys.message(message.session_id, message.id), kind: 'chat_message', ...message });

export interface Idempotency {
  key: string;
  fingerprint: string;
}

/** The message stored earlier under this Idempotency-Key, if any (a strongly consistent read). */
export async function findIdempotentMessage(
  sessionId: string,
  idempotency: Idempotency,
): Promise<ChatMessage | undefined> {
  const record = await getItem<IdempotencyItem>(chatKeys.idempotency(sessionId, idempotency.key), {
    consistent: true,
  });
  if (!record) return undefined;
  if (record.fingerprint !== idempotency.fingerprint)
    throw new ConflictError('Idempotency-Key was already used with a different message');
  // Re-put: a crash between the two writes of the first request left the record without its message.
  await putMessage(record.message);
  return toMessage(record.message);
}

/**
 * Stores a user's message. With an Idempotency-Key, the record claiming the key is written first
 * (conditionally, with the whole message in it) and the message second; a request that loses the
 * claim answers with the message of the one that won.
 */
export async function storeUserMessage(
  sessionId: string,
  content: ContentBlock[],
  idempotency?: Idempotency,
): Promise<ChatMessage> {
  const message = newMessage(sessionId, 'user', content);
  if (idempotency) {
    const record: IdempotencyItem = {
      kind: 'chat_idempotency',
      key: idempotency.key,
      fingerprint: idempotency.fingerprint,
      message,
      created_at: message.created_at,
    };
    const claimed = await putNew({ ...chatKeys.idempotency(sessionId, idempotency.key), ...record });
    if (!claimed) {
      const first = await findIdempotentMessage(sessionId, idempotency);
      if (first) return first;
    }
  }
  await putMessage(message);
  return message;
}

/** The answering agent's write path (and the seed's): a reply in the session. */
export async function addAssistantMessage(sessionId: string, text: string): Promise<ChatMessage> {
  const message = newMessage(sessionId, 'assistant', [{ text }]);
  await putMessage(message);
  return message;
}
