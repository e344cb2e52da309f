// FastAPI echoes a refused input in its 422 items, which would send a secret back (as the whole body
// when another field is missing). For a route's `secretFields` (see route.ts) this middleware masks
// them in those echoes as pydantic's SecretStr prints them, before the one error mapper answers.
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { RequestValidationError } from './errors.ts';
import { isObject } from './fields.ts';
import { decodePythonJson } from './python-json.ts';

export const SECRET_MASK = '**********';

// A key that names a secret in another spelling (`Client_Secret`, `clientSecret`) is masked too: a
// client's slip should not send its secret back.
const isSecret = (key: string, fields: readonly string[]) => fields.includes(key) || /secret/i.test(key);

/** The non-empty strings the body holds under a secret's name, at any depth. */
const secretValues = (value: unknown, fields: readonly string[], into: string[] = []): string[] => {
  if (Array.isArray(value)) for (const entry of value) secretValues(entry, fields, into);
  else if (isObject(value))
    for (const [key, entry] of Object.entries(value))
      if (isSecret(key, fields) && typeof entry === 'string' && entry !== '') into.push(entry);
      else secretValues(entry, fields, into);
  return into;
};

/** The secrets the request's JSON body carries: a copy of one under another name (`{"client_id":
 * {"key": "<secret>"}}`, a note quoting it) is masked too, wherever the echo shows it. */
const sentSecrets = (event: APIGatewayProxyEventV2, fields: readonly string[]): string[] => {
  if (!event.body) return [];
  const text = Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8').toString('utf8');
  try {
    const decoded = decodePythonJson(text);
    return decoded.ok ? secretValues(decoded.value, fields) : [];
  } catch {
    return []; // too deep to parse: no body item echoes anything then
  }
};

const masked = (value: unknown, fields: readonly string[], secrets: readonly string[]): unknown => {
  const holdsSecret = (text: string) => secrets.some((secret) => text.includes(secret));
  if (typeof value === 'string') return holdsSecret(value) ? SECRET_MASK : value;
  if (Array.isArray(value)) return value.map((entry) => masked(entry, fields, secrets));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [
      holdsSecret(key) ? SECRET_MASK : key,
      isSecret(key, fields) ? SECRET_MASK : masked(entry, fields, secrets),
    ]),
  );
};

export const hideSecretInputs = (fields: readonly string[]): MiddlewareObj<APIGatewayProxyEventV2> => ({
  onError: (request) => {
    const error = request.error;
    if (!(error instanceof RequestValidationError)) return;
    const secrets = error.items.some((item) => item.loc[0] === 'body')
      ? sentSecrets(request.event, fields)
      : [];
    for (const item of error.items) {
      if (item.loc[0] !== 'body') continue;
      const field = item.loc[1];
      if (
        item.loc.length === 2 &&
        typeof field === 'string' &&
        isSecret(field, fields) &&
        item.type !== 'missing'
      )
        item.input = SECRET_MASK;
      // A body that is not an object (raw text, a list, a bare string) may hold the secret anywhere;
      // a missing one (`input: null`) holds nothing.
      else if (item.loc.length === 1 && !isObject(item.input) && item.input !== null)
        item.input = SECRET_MASK;
      else item.input = masked(item.input, fields, secrets);
    }
  },
});
