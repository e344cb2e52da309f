// POST /api/v1/chat/sessions/{session_id}/messages (spec 11): store a user's message, its attachments
// as content blocks; an Idempotency-Key header makes a retry return the first message.
import { ChatMessage, ChatSessionPath, SendMessageBody } from '#shared/chat/schemas';
import { sendMessage } from '#shared/chat/send';
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';

export const handler = httpRoute(
  {
    path: ChatSessionPath,
    header: IdempotencyHeader,
    body: SendMessageBody,
    status: 201,
    response: ChatMessage,
    summary: 'Send a chat message',
    errors: [409],
  },
  ({ caller, path, header, body }) =>
    sendMessage(caller.userId, path.session_id, body, header['idempotency-key']),
);
