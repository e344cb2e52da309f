// POST /api/v1/chat/sessions: open a chat session, optionally about one of the caller's teams or projects.
import { ChatSession, CreateChatSessionBody } from '#shared/chat/schemas';
import { createChatSession } from '#shared/chat/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  {
    body: CreateChatSessionBody,
    status: 201,
    response: ChatSession,
    summary: 'Open a chat session',
    // A team_id or project_id that is not the caller's.
    errors: [404],
  },
  ({ caller, body }) => createChatSession(caller.userId, body),
);
