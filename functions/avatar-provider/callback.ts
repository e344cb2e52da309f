// POST /api/v1/avatar-provider/callback: the avatar provider reports a training outcome. No bearer
// token: the request is signed with the shared secret (HMAC-SHA256 over the raw body), checked
// before the body is parsed.
import { providerSignature, signedMessageId } from '#shared/avatars/callback-auth';
import { receiveProviderReport } from '#shared/avatars/reports';
import { ProviderReportBody, ProviderReportResult } from '#shared/avatars/schemas';
import { httpRoute } from '#shared/http/route';

export const handler = httpRoute(
  {
    auth: false,
    verify: providerSignature,
    body: ProviderReportBody,
    response: ProviderReportResult,
    summary: 'Avatar provider callback (signed with the shared secret)',
    errors: [401, 404],
  },
  ({ body, event }) => receiveProviderReport(body, signedMessageId(event)),
);
