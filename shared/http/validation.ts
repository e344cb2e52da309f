// Validation of path, query and body against valibot schemas, reported as FastAPI 422 items.
import * as v from 'valibot';
import { RequestValidationError, type ValidationItem } from './errors.ts';
import { decodeFastapi, isObject, valueError } from './fields.ts';
import { decodePythonNumbers, PythonNumber } from './python-json.ts';

export type Source = 'path' | 'query' | 'header' | 'body';

/** How an absent value is echoed: FastAPI gives `null` for parameters and form fields it reads
 * itself, and the enclosing object for a field missing inside a JSON body. */
type MissingInput = 'null' | 'parent';

export function issuesToItems(
  issues: readonly v.BaseIssue<unknown>[],
  source: Source,
  missingInput: MissingInput,
): ValidationItem[] {
  return issues.map((issue) => {
    const path = issue.path ?? [];
    const loc: (string | number)[] = [source, ...path.map((p) => p.key as string | number)];
    const last = path.at(-1);
    if (last?.origin === 'key') {
      return {
        type: 'missing',
        loc,
        msg: 'Field required',
        input: missingInput === 'parent' ? (last.input ?? null) : null,
      };
    }
    const input = issue.input === undefined ? null : issue.input;
    // A message of ours carries its FastAPI error; any other (valibot's own) is a value_error.
    return fieldError(loc, input, decodeFastapi(issue.message) ? issue.message : valueError(issue.message));
  });
}

export interface RequestParts {
  path: Record<string, string>;
  query: Record<string, string>;
  /** Lower-case header names, as API Gateway's v2.0 event carries them. */
  header: Record<string, string | undefined>;
  /** undefined when the request had no body at all. */
  body: unknown;
}

export interface RequestSchemas {
  path?: v.GenericSchema;
  query?: v.GenericSchema;
  header?: v.GenericSchema;
  body?: v.GenericSchema;
  /** The body came from a form: absent fields echo `null`, as FastAPI's Form() does. */
  bodyIsForm?: boolean;
}

/** Validates every part and throws one 422 with all items, in FastAPI's order: path, query, header,
 * body. */
export function validateRequest(schemas: RequestSchemas, parts: RequestParts) {
  const items: ValidationItem[] = [];
  const run = (
    source: Source,
    schema: v.GenericSchema | undefined,
    value: unknown,
    missing: MissingInput,
  ) => {
    if (!schema) return undefined;
    const result = v.safeParse(schema, value);
    if (result.success) return result.output;
    items.push(...issuesToItems(result.issues, source, missing));
    return undefined;
  };
  const path = run('path', schemas.path, parts.path, 'null');
  const query = run('query', schemas.query, parts.query, 'null');
  const header = run('header', schemas.header, parts.header, 'null');
  let body: unknown;
  if (schemas.body) {
    if (parts.body === undefined || parts.body === null) {
      if (schemas.bodyIsForm) body = run('body', schemas.body, {}, 'null');
      else items.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
    } else body = run('body', schemas.body, parts.body, schemas.bodyIsForm ? 'null' : 'parent');
  }
  if (items.length > 0) throw new RequestValidationError(items);
  return { path, query, header, body };
}

/**
 * Float literals and big integers in a refused JSON body echo as Python prints them (`-1.0`, `100.0`
 * for `1e2`, `99999999999999999999` exact), not as JSON.parse left them (`-1`, `100000000000000000000`).
 * Only when a 422 names the body: its text is read again, number-aware, and each body item's input
 * takes a PythonNumber wherever the body holds one of the same value at the same place (the item's loc;
 * its parent's for a missing field). Anything else stays as it is: masked secrets, values the schema
 * changed, inputs that are not the body's.
 */
export function echoNumberLiterals(items: readonly ValidationItem[], bodyText: string | undefined) {
  if (bodyText === undefined || !items.some((item) => item.loc[0] === 'body')) return;
  let body: ReturnType<typeof decodePythonNumbers>;
  try {
    body = decodePythonNumbers(bodyText);
  } catch {
    return; // too deep for CPython: a body no route parsed (a form route's), whose echoes are null
  }
  if (!body.ok) return; // the json_invalid item itself
  for (const item of items) {
    if (item.loc[0] !== 'body') continue;
    const at = item.loc.slice(1, item.type === 'missing' ? -1 : undefined);
    item.input = withNumbers(item.input, valueAt(body.value, at));
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  isObject(value) && !(value instanceof PythonNumber);

const valueAt = (value: unknown, path: readonly (string | number)[]): unknown => {
  for (const key of path) {
    if (Array.isArray(value) && typeof key === 'number') value = value[key];
    else if (isPlainObject(value) && Object.hasOwn(value, key)) value = value[key];
    else return undefined;
  }
  return value;
};

const withNumbers = (echo: unknown, raw: unknown): unknown => {
  if (typeof echo === 'number') return raw instanceof PythonNumber && Object.is(raw.value, echo) ? raw : echo;
  if (Array.isArray(echo))
    return Array.isArray(raw) ? echo.map((item, i) => withNumbers(item, raw[i])) : echo;
  if (!isPlainObject(echo) || !isPlainObject(raw)) return echo;
  return Object.fromEntries(
    Object.entries(echo).map(([key, entry]) => [
      key,
      withNumbers(entry, Object.hasOwn(raw, key) ? raw[key] : undefined),
    ]),
  );
};

/** How much of an echoed string a 422 keeps when the whole echo would not fit Lambda's response. */
export const CUT_ECHO_LENGTH = 1000;

/** The items with every string in their inputs, object keys too, cut to CUT_ECHO_LENGTH characters
 * and '…' (two keys cut alike keep the later one's entry: an echo, not the body). */
export const cutEchoes = (items: readonly ValidationItem[]): ValidationItem[] =>
  items.map((item) => ({ ...item, input: cutStrings(item.input) }));

const cutString = (value: string) => {
  if (value.length <= CUT_ECHO_LENGTH) return value;
  const head = value.slice(0, CUT_ECHO_LENGTH);
  return `${/[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head}…`; // never half a pair
};

const cutStrings = (value: unknown): unknown => {
  if (typeof value === 'string') return cutString(value);
  if (Array.isArray(value)) return value.map(cutStrings);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [cutString(key), cutStrings(entry)]));
};

/** A FastAPI item for a rule a handler checks past validation (an object's type, an attachment),
 * at a location it names, from one of the encoded errors of fields.ts. */
export function fieldError(loc: (string | number)[], input: unknown, message: string): ValidationItem {
  const { type, msg, ctx } = decodeFastapi(message)!;
  return ctx === undefined ? { type, loc, msg, input } : { type, loc, msg, input, ctx };
}

/** The 422 for one value a handler refuses past validation: pydantic's `value_error` at `loc`. */
export const valueRefused = (loc: (string | number)[], input: unknown, text: string) =>
  new RequestValidationError([fieldError(loc, input, valueError(text))]);
