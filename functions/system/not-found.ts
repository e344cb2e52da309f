// API Gateway's `$default` route: any request no route of the table matches. Answers as FastAPI
// (and the local server) do: 405 with `Allow` when the path exists under another method, else 404.
import { httpRoute, Reply } from '#shared/http/route';
import { matchRoute } from '../../infra/routes.ts';

export const handler = httpRoute({ auth: false, summary: 'Unmatched requests' }, async ({ event }) => {
  const match = matchRoute(event.requestContext.http.method, event.rawPath);
  if (!match.found && match.status === 405)
    return new Reply(405, { detail: 'Method Not Allowed' }, { allow: match.allow!.join(', ') });
  return new Reply(404, { detail: 'Not Found' });
});
