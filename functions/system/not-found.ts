// API Gateway's `$default` route (and the local server's, which sends unmatched requests here too):
// any request no route of the table matches. Answers as FastAPI does: 405 with `Allow` when the path
// exists under another method, 307 to the other form when the path differs from a route's only by a
// trailing slash, else 404.
import { STATUS_TEXT } from '#shared/http/errors';
import { httpRoute, Reply } from '#shared/http/route';
import { matchRoute, slashRedirectLocation } from '../../infra/routes.ts';

export const handler = httpRoute({ auth: false, summary: 'Unmatched requests' }, async ({ event }) => {
  const match = matchRoute(event.requestContext.http.method, event.rawPath);
  if (!match.found && match.status === 405)
    return new Reply(405, { detail: STATUS_TEXT[405] }, { allow: match.allow!.join(', ') });
  if (!match.found && match.status === 307) {
    // `Host` is the name the client used (custom domain or execute-api); API Gateway sets the scheme
    // in `x-forwarded-proto` (always https there; http from the local server).
    const location = slashRedirectLocation({
      scheme: event.headers?.['x-forwarded-proto'] ?? 'https',
      host: event.headers?.host ?? event.requestContext.domainName,
      path: match.path,
      rawQueryString: event.rawQueryString,
    });
    return new Reply(307, '', { location });
  }
  return new Reply(404, { detail: STATUS_TEXT[404] });
});
