// Validation of path, query and body against valibot schemas, reported as FastAPI 422 items.
import * as v from 'valibot';
import { RequestValidationError, type ValidationItem } from './errors.ts';
import { decodeFastapi } from './fields.ts';

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
    const known = decodeFastapi(issue.message);
    const input = issue.input === undefined ? null : issue.input;
    if (!known)
      return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input, ctx: { error: {} } };
    return known.ctx === undefined
      ? { type: known.type, loc, msg: known.msg, input }
      : { type: known.type, loc, msg: known.msg, input, ctx: known.ctx };
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
