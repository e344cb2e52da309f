// GET /api/v1/chat/sessions: the caller's chat sessions, newest first.
import { ChatSessionList } from '#shared/chat/schemas';
import { listChatSessions } from '#shared/chat/store';
import { OwnerListQuery } from '#shared/db/owner-lists';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  {
    query: OwnerListQuery,
    response: ChatSessionList,
    summary: 'List the caller’s chat sessions, newest first',
  },
  ({ caller, query }) => listChatSessions(caller.userId, query),
);
