// POST /api/v1/chat/sessions: open a chat session, optionally about one of the caller's teams or projects;
// an Idempotency-Key header makes a retry answer the first session.
import { ChatSession, CreateChatSessionBody } from '#shared/chat/schemas';
import { createChatSession } from '#shared/chat/store';
import { httpRoute } from '#shared/http/route';
import { IdempotencyHeader } from '#shared/idempotency';

export const handler = httpRoute(
  {
    header: IdempotencyHeader,
    body: CreateChatSessionBody,
    status: 201,
    response: ChatSession,
    summary: 'Open a chat session',
    // A team_id or project_id that is not the caller's; a key used with another request.
    errors: [404, 409],
  },
  ({ caller, header, body }) => createChatSession(caller.userId, body, header['idempotency-key']),
);
