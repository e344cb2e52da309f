// FastAPI echoes a refused input in its 422 items, which would send a secret back (as the whole body
// when another field is missing). For a route's `secretFields` (see route.ts) this middleware masks
// them in those echoes as pydantic's SecretStr prints them, before the one error mapper answers.
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { bodyBytes } from './body.ts';
import { RequestValidationError } from './errors.ts';
import { isObject } from './fields.ts';
import { decodePythonNumbers, PythonNumber } from './python-json.ts';

export const SECRET_MASK = '**********';

// A key that names a secret in another spelling (`Client_Secret`, `clientSecret`) is masked too: a
// client's slip should not send its secret back.
const isSecret = (key: string, fields: readonly string[]) => fields.includes(key) || /secret/i.test(key);

/** A number as a 422 echoes it: a float literal or big integer as Python prints it (PythonNumber),
 * else as JSON writes it. */
const numberText = (value: number | PythonNumber) =>
  value instanceof PythonNumber ? value.repr : JSON.stringify(value);

/** The values the body sends under a secret's name, at any depth (a list or an object under it too),
 * as text: its non-empty strings, and its numbers as a 422 echoes them. */
const secretValues = (value: unknown, fields: readonly string[], under = false, into: string[] = []) => {
  if (under && typeof value === 'string') {
    if (value !== '') into.push(value);
  } else if (under && (typeof value === 'number' || value instanceof PythonNumber))
    into.push(numberText(value));
  else if (Array.isArray(value)) for (const entry of value) secretValues(entry, fields, under, into);
  else if (isObject(value) && !(value instanceof PythonNumber))
    for (const [key, entry] of Object.entries(value))
      secretValues(entry, fields, under || isSecret(key, fields), into);
  return into;
};

/** The body's numbers whose text holds one of the secrets (their values, as the 422 items echo them). */
const numbersHolding = (value: unknown, secrets: readonly string[], into = new Set<number>()) => {
  if (typeof value === 'number' || value instanceof PythonNumber) {
    const text = numberText(value);
    if (secrets.some((secret) => text.includes(secret)))
      into.add(value instanceof PythonNumber ? value.value : value);
  } else if (Array.isArray(value)) for (const entry of value) numbersHolding(entry, secrets, into);
  else if (isObject(value)) for (const entry of Object.values(value)) numbersHolding(entry, secrets, into);
  return into;
};

interface SentSecrets {
  texts: string[];
  numbers: Set<number>;
  /** More secret values than any client sends: every echoed body input is masked whole. */
  tooMany?: boolean;
}
const noSecrets = (): SentSecrets => ({ texts: [], numbers: new Set() });

/** Each echoed text is looked for every secret value in it: a body of thousands of them under a
 * secret's name made that the square of the body (13 s for 242 KB). A client sends one or two. */
const MAX_SECRET_VALUES = 16;

/** The secrets the request's JSON body carries: a copy of one under another name (`{"client_id":
 * {"key": "<secret>"}}`, a note quoting it, its digits sent as a number) is masked too, wherever the
 * echo shows it. Numbers are read as the 422 echoes them (big integers with every digit). */
const sentSecrets = (event: APIGatewayProxyEventV2, fields: readonly string[]): SentSecrets => {
  if (!event.body) return noSecrets();
  const text = bodyBytes(event).toString('utf8');
  try {
    const decoded = decodePythonNumbers(text);
    if (!decoded.ok) return noSecrets();
    const texts = secretValues(decoded.value, fields);
    if (texts.length > MAX_SECRET_VALUES) return { texts: [], numbers: new Set(), tooMany: true };
    return { texts, numbers: texts.length ? numbersHolding(decoded.value, texts) : new Set() };
  } catch {
    return noSecrets(); // too deep to parse: no body item echoes anything then
  }
};

const masked = (value: unknown, fields: readonly string[], secrets: SentSecrets): unknown => {
  const holdsSecret = (text: string) => secrets.texts.some((secret) => text.includes(secret));
  if (typeof value === 'string') return holdsSecret(value) ? SECRET_MASK : value;
  if (typeof value === 'number')
    return secrets.numbers.has(value) || holdsSecret(JSON.stringify(value)) ? SECRET_MASK : value;
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
      : noSecrets();
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
      else if (
        (item.loc.length === 1 && !isObject(item.input) && item.input !== null) ||
        (secrets.tooMany && item.input !== null)
      )
        item.input = SECRET_MASK;
      else item.input = masked(item.input, fields, secrets);
    }
  },
});
