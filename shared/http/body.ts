// A request's body as the client sent it: API Gateway hands a binary body over base64-encoded.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

type BodyOf = Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>;

/** How the event spells the body's bytes. */
export const bodyEncoding = (event: BodyOf): BufferEncoding => (event.isBase64Encoded ? 'base64' : 'utf8');

/** The body's bytes, exactly as sent (none: empty). */
export const bodyBytes = (event: BodyOf): Buffer => Buffer.from(event.body ?? '', bodyEncoding(event));
