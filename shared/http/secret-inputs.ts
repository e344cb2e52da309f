// FastAPI echoes a refused input in its 422 items, which would send a secret back (as the whole body
// when another field is missing). For a route's `secretFields` (see route.ts) this middleware masks
// them in those echoes as pydantic's SecretStr prints them, before the one error mapper answers.
import type { MiddlewareObj } from '@middy/core';
import { RequestValidationError } from './errors.ts';
import { isObject } from './fields.ts';

export const SECRET_MASK = '**********';

// A key that names a secret in another spelling (`Client_Secret`, `clientSecret`) is masked too: a
// client's slip should not send its secret back.
const isSecret = (key: string, fields: readonly string[]) => fields.includes(key) || /secret/i.test(key);

const masked = (value: unknown, fields: readonly string[]): unknown => {
  if (Array.isArray(value)) return value.map((entry) => masked(entry, fields));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [
      key,
      isSecret(key, fields) ? SECRET_MASK : masked(entry, fields),
    ]),
  );
};

export const hideSecretInputs = (fields: readonly string[]): MiddlewareObj => ({
  onError: (request) => {
    const error = request.error;
    if (!(error instanceof RequestValidationError)) return;
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
      else item.input = masked(item.input, fields);
    }
  },
});
