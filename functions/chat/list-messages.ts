// GET /api/v1/chat/sessions/{session_id}/messages: the session's messages, oldest first, paged.
import { ChatMessagePage, ChatSessionPath, ListMessagesQuery } from '#shared/chat/schemas';
import { listMessages } from '#shared/chat/store';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  {
    path: ChatSessionPath,
    query: ListMessagesQuery,
    response: ChatMessagePage,
    summary: 'List the messages of a chat session',
  },
  ({ caller, path, query }) => listMessages(caller.userId, path.session_id, query),
);
