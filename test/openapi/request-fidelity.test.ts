// Does the OpenAPI document accept exactly the requests the server accepts? Clients generate SDKs and
// form validation from it: where it is looser they send requests the server refuses with a 422, where
// it is stricter they refuse requests the server would take. For every route with parameters or a
// body, every field the document names gets candidate values (boundaries of the document's schema and
// of the server's, found by probing its validation; wrong types and formats; the fuzz suite's hostile
// strings), each put into an otherwise valid request, and two verdicts are compared: ajv 2020 over the
// document's operation, and the route's own validation (validateRequest over the schemas its handler
// declares, the pipeline's 422 step). Every disagreement fails the test unless one of the named
// EXCEPTIONS below excuses it, and every exception has to excuse something. A second check finds the
// custom actions the JSON Schema converter drops with nothing said in their place.
// Refusals a handler makes past validation (a key that is not the caller's upload, an attachment's
// stored type) depend on stored data and are not measured here. FIDELITY_REPORT=1 prints every
// disagreement found, with the exception that excuses it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, describe, it } from 'node:test';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { documentedRoute } from '../../infra/local/openapi.ts';
import { eventFile, type Route, routeKey, routes } from '../../infra/routes.ts';
import { RequestValidationError, type ValidationItem } from '../../shared/http/errors.ts';
import { isUploadedFile, type UploadedFile } from '../../shared/http/multipart.ts';
import { validateRequest } from '../../shared/http/validation.ts';
import { type DocumentedRoute, operationFor } from '../../shared/openapi/document.ts';
import { hostileNumberText, hostileString } from '../support/fuzz.ts';
import { startHarness } from '../support/harness.ts';
import { multipart } from '../support/multipart.ts';

type Json = Record<string, unknown>;
type Params = Record<string, string>;
/** A request as the validation step sees it; `body` is a JSON value, or a form's fields. */
interface Input {
  path: Params;
  query: Params;
  header: Params;
  body?: unknown;
}
type Kind = 'json' | 'form';
type Place = 'path' | 'query' | 'header' | 'body';
interface Parameter {
  name: string;
  in: Exclude<Place, 'body'>;
  required: boolean;
  schema: Json;
}
type Operation = ReturnType<typeof operationFor> & { parameters: Parameter[] };

interface Subject {
  route: Route;
  options: DocumentedRoute['options'];
  operation: Operation;
  kind: Kind;
  baseline: Input;
}

interface Field {
  place: Place;
  /** Below the place: a parameter's name, or the body's keys and indices. */
  path: (string | number)[];
  schema: Json;
}

interface ServerVerdict {
  ok: boolean;
  items?: ValidationItem[];
  output?: { path: unknown; query: unknown; header: unknown; body: unknown };
}

interface Disagreement {
  subject: Subject;
  field: Field;
  value: unknown;
  doc: { ok: boolean; why?: string };
  server: ServerVerdict;
}

// ---- the document's verdict ------------------------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv as never);
const compiled = new Map<unknown, ValidateFunction>();
const validatorOf = (schema: Json) => {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
};
const check = (schema: Json, value: unknown) => {
  const validate = validatorOf(schema);
  return validate(value) ? { ok: true } : { ok: false, why: ajv.errorsText(validate.errors) };
};

/** The JSON types a schema admits (its own `type`, or its branches'). */
const typesOf = (schema: Json): Set<string> => {
  const types = new Set<string>();
  if (typeof schema.type === 'string') types.add(schema.type);
  for (const branch of (schema.anyOf ?? schema.oneOf ?? []) as Json[])
    for (const type of typesOf(branch)) types.add(type);
  return types;
};
const isBinary = (schema: Json) => schema.format === 'binary';
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** How a client that follows the document spells an integer in text: decimal digits. */
const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;

/** A parameter or form field arrives as text: it is read as each type its schema admits (OpenAPI's
 * simple style), and accepted when one reading validates. */
const textAccepted = (schema: Json, text: string) => {
  const types = typesOf(schema);
  const readings: unknown[] = [];
  if (types.has('string') || types.size === 0) readings.push(text);
  if ((types.has('number') && JSON_NUMBER.test(text)) || (types.has('integer') && INTEGER_TEXT.test(text)))
    readings.push(Number(text));
  if (types.has('boolean') && (text === 'true' || text === 'false')) readings.push(text === 'true');
  let last: { ok: boolean; why?: string } = { ok: false, why: `"${text}" reads as none of its types` };
  for (const reading of readings) {
    last = check(schema, reading);
    if (last.ok) return last;
  }
  return last;
};

const bodySchema = (subject: Subject): Json | undefined =>
  (subject.operation.requestBody?.content as Record<string, { schema: Json } | undefined> | undefined)?.[
    subject.kind === 'json' ? 'application/json' : 'multipart/form-data'
  ]?.schema;

/** The document's verdict on a request as sent (`typed`: on the server's output, whose parameters
 * and form fields are no longer text). */
function documentVerdict(subject: Subject, input: Input, typed = false): { ok: boolean; why?: string } {
  for (const parameter of subject.operation.parameters) {
    const value = (input[parameter.in] as Record<string, unknown> | undefined)?.[parameter.name];
    if (value === undefined) {
      if (parameter.required) return { ok: false, why: `${parameter.name} is required` };
      continue;
    }
    const verdict =
      typed || typeof value !== 'string'
        ? check(parameter.schema, value)
        : textAccepted(parameter.schema, value);
    if (!verdict.ok) return { ok: false, why: `${parameter.in} ${parameter.name}: ${verdict.why}` };
  }
  const schema = bodySchema(subject);
  if (!schema) return { ok: true };
  if (subject.kind === 'json') return check(schema, input.body);
  const fields = input.body as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  for (const name of (schema.required ?? []) as string[])
    if (fields[name] === undefined) return { ok: false, why: `form field ${name} is required` };
  for (const [name, property] of Object.entries(properties)) {
    const value = fields[name];
    if (value === undefined) continue;
    // A file part is a binary string; so, for all OpenAPI can say, is a text part.
    if (isBinary(property)) continue;
    if (isUploadedFile(value)) return { ok: false, why: `form field ${name} is a file` };
    const verdict =
      !typed && typeof value === 'string' ? textAccepted(property, value) : check(property, value);
    if (!verdict.ok) return { ok: false, why: `form field ${name}: ${verdict.why}` };
  }
  return { ok: true };
}

// ---- the server's verdict --------------------------------------------------------------------

function serverVerdict(subject: Subject, input: Input): ServerVerdict {
  const { options, kind } = subject;
  try {
    const output = validateRequest(
      {
        path: options.path,
        query: options.query,
        header: options.header,
        body: kind === 'form' ? options.form?.schema : options.body,
        bodyIsForm: kind === 'form',
      },
      { path: input.path, query: input.query, header: input.header, body: input.body },
    );
    return { ok: true, output };
  } catch (error) {
    if (error instanceof RequestValidationError) return { ok: false, items: error.items };
    throw error;
  }
}

// ---- named exceptions -------------------------------------------------------------------------

/** The schema nodes a 422's loc passes through in the document, for their descriptions. */
function schemasAlong(subject: Subject, loc: readonly (string | number)[]): Json[] {
  const [place, ...rest] = loc;
  let nodes: Json[];
  if (place === 'body') nodes = [bodySchema(subject) ?? {}];
  else {
    const parameter = subject.operation.parameters.find((p) => p.in === place && p.name === rest[0]);
    if (!parameter) return [];
    nodes = [parameter.schema];
    rest.shift();
  }
  const seen: Json[] = [];
  const expand = (node: Json): Json[] => [node, ...((node.anyOf ?? []) as Json[]).flatMap(expand)];
  for (const key of rest) {
    const here = nodes.flatMap(expand);
    seen.push(...here);
    nodes = here.flatMap((node) => {
      if (typeof key === 'number') return node.items ? [node.items as Json] : [];
      const property = (node.properties as Record<string, Json> | undefined)?.[key];
      return property ? [property] : [];
    });
  }
  seen.push(...nodes.flatMap(expand));
  return seen;
}

const hasLoneSurrogate = (value: unknown): boolean => {
  if (typeof value === 'string') return !value.isWellFormed();
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (value && typeof value === 'object' && !isUploadedFile(value))
    return Object.entries(value).some(([key, item]) => !key.isWellFormed() || hasLoneSurrogate(item));
  return false;
};

const VALUE_ERROR = 'Value error, ';

interface Exception {
  name: string;
  why: string;
  excuses(d: Disagreement): boolean;
}

const EXCEPTIONS: Exception[] = [
  {
    name: 'lax spellings the server normalises',
    why: 'The server parses like pydantic in lax mode: "5", 5.0, true or " 5 " for an integer, "yes" or 1 for a boolean, a UUID in braces or without hyphens, a date-time at midnight for a date, a colour with spaces around it. It turns each into the canonical value the document describes, and the document names only that one. A client that follows the document is never refused. The exception holds only when the server’s output passes the document.',
    excuses: (d) => d.server.ok && !d.doc.ok && documentVerdict(d.subject, d.server.output as Input, true).ok,
  },
  {
    name: 'lone surrogates',
    why: 'JSON Schema validates Unicode text. A lone surrogate (JSON "\\ud800") is not a Unicode scalar value, so RFC 8259 §8.2 and I-JSON leave it out of interoperable JSON and no keyword can name it. The server refuses it as pydantic does (string_unicode), because it has no UTF-8 form to store or echo.',
    excuses: (d) =>
      d.doc.ok &&
      !d.server.ok &&
      hasLoneSurrogate(d.value) &&
      d.server.items!.every((item) => item.type === 'string_unicode'),
  },
  {
    name: 'rules stated in the schema’s description',
    why: 'Some rules have no JSON Schema keyword: a rule across fields (per_week against the preferred days and times, price_min_cents against price_max_cents), the size in bytes of a free-form object as JSON and what the table can store in it, a name in the runtime’s time-zone database, a file part rather than a text part. The schema’s description at the refused location states each one in the words of the 422 it causes (the value_error’s text). The exception holds only when it does.',
    excuses: (d) =>
      d.doc.ok &&
      !d.server.ok &&
      d.server.items!.every(
        (item) =>
          item.type === 'value_error' &&
          item.msg.startsWith(VALUE_ERROR) &&
          schemasAlong(d.subject, item.loc).some(
            (node) =>
              typeof node.description === 'string' &&
              node.description.includes(item.msg.slice(VALUE_ERROR.length)),
          ),
      ),
  },
];

// ---- requests and fields ----------------------------------------------------------------------

const PLACEHOLDER_ID = '01a1fc6e-0000-7000-8000-00000000000a';
const FILE: UploadedFile = {
  filename: 'sample.bin',
  mimetype: 'application/octet-stream',
  content: Buffer.from('x'),
};

/** What the sample events leave out, so that every field sits in a valid request. */
const BODY_ADDITIONS: Record<string, Json> = {
  'POST /api/v1/chat/sessions/{session_id}/messages': {
    attachments: [
      { key: `uploads/${PLACEHOLDER_ID}/a/photo.png`, name: 'photo.png', media_type: 'image/png' },
    ],
  },
};

/** The smallest value a schema describes, for bodies no sample event gives. */
const smallest = (schema: Json): unknown => {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    return Object.fromEntries(
      ((schema.required ?? []) as string[]).map((name) => [name, smallest(properties[name] ?? {})]),
    );
  }
  if (schema.type === 'string') return 'a'.repeat(Math.max(1, (schema.minLength as number | undefined) ?? 1));
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 0;
  if (schema.type === 'boolean') return false;
  if (schema.type === 'array') return [];
  return null;
};

async function subjectsOf(route: Route): Promise<Subject[]> {
  const documented = await documentedRoute(route);
  const operation = operationFor(documented) as Operation;
  const { options } = documented;
  const event = JSON.parse(
    (await readFile(eventFile(route), 'utf8')).replace(/\{\{\w+\}\}/g, PLACEHOLDER_ID),
  ) as { pathParameters?: Params; rawQueryString?: string; headers?: Params; body?: string };
  const header: Params = {};
  for (const parameter of operation.parameters)
    if (parameter.in === 'header' && event.headers?.[parameter.name] !== undefined)
      header[parameter.name] = event.headers[parameter.name]!;
  const base = {
    path: { ...event.pathParameters },
    query: Object.fromEntries(new URLSearchParams(event.rawQueryString ?? '')),
    header,
  };
  const subjects: Subject[] = [];
  if (options.body) {
    const schema = (operation.requestBody!.content as Record<string, { schema: Json }>)['application/json']!
      .schema;
    let body: unknown;
    try {
      body = JSON.parse(event.body ?? '');
    } catch {
      body = smallest(schema);
    }
    body = { ...(body as Json), ...BODY_ADDITIONS[routeKey(route)] };
    subjects.push({ route, options, operation, kind: 'json', baseline: { ...base, body } });
  }
  if (options.form) {
    const schema = (operation.requestBody!.content as Record<string, { schema: Json }>)[
      'multipart/form-data'
    ]!.schema;
    const fields: Record<string, unknown> = {};
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      if (isBinary(property)) fields[name] = FILE;
      else if ('const' in property) fields[name] = String(property.const);
    }
    subjects.push({ route, options, operation, kind: 'form', baseline: { ...base, body: fields } });
  }
  if (!options.body && !options.form && operation.parameters.length > 0)
    subjects.push({ route, options, operation, kind: 'json', baseline: base });
  return subjects;
}

const nonNull = (schema: Json): Json => {
  const branches = ((schema.anyOf ?? []) as Json[]).filter((b) => b.type !== 'null');
  return branches.length === 1 ? branches[0]! : schema;
};

function* fieldsOf(schema: Json, place: Place, path: (string | number)[] = []): Generator<Field> {
  yield { place, path, schema };
  const node = nonNull(schema);
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, Json>))
    yield* fieldsOf(property, place, [...path, name]);
  if (node.items) yield* fieldsOf(node.items as Json, place, [...path, 0]);
}

const fieldsCache = new Map<Subject, Field[]>();
function fieldsOfSubject(subject: Subject): Field[] {
  let fields = fieldsCache.get(subject);
  if (!fields) {
    fields = listFields(subject);
    fieldsCache.set(subject, fields);
  }
  return fields;
}

function listFields(subject: Subject): Field[] {
  const fields: Field[] = subject.operation.parameters.map((p) => ({
    place: p.in,
    path: [p.name],
    schema: p.schema,
  }));
  const schema = bodySchema(subject);
  // A form is always a set of parts: its fields vary, not the whole.
  if (schema)
    fields.push(...[...fieldsOf(schema, 'body')].filter((f) => subject.kind === 'json' || f.path.length > 0));
  return fields;
}

const ABSENT = Symbol('absent');

/** The baseline request with one field replaced (or left out: ABSENT). */
function withValue(subject: Subject, field: Field, value: unknown): Input {
  const { baseline } = subject;
  const input: Input = {
    path: { ...baseline.path },
    query: { ...baseline.query },
    header: { ...baseline.header },
    body:
      subject.kind === 'form'
        ? { ...(baseline.body as Json) }
        : baseline.body === undefined
          ? undefined
          : structuredClone(baseline.body),
  };
  if (field.place === 'body' && field.path.length === 0) {
    input.body = value === ABSENT ? undefined : value;
    return input;
  }
  let parent = field.place === 'body' ? (input.body as Record<string | number, unknown>) : input[field.place];
  const path = field.path;
  for (const [i, key] of path.slice(0, -1).entries()) {
    let next = (parent as Record<string | number, unknown>)[key];
    if (next === null || typeof next !== 'object') {
      next = typeof path[i + 1] === 'number' ? [] : {};
      (parent as Record<string | number, unknown>)[key] = next;
    }
    parent = next as Record<string | number, unknown>;
  }
  const last = path.at(-1)!;
  if (value === ABSENT) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete (parent as Record<string | number, unknown>)[last];
  } else (parent as Record<string | number, unknown>)[last] = value;
  return input;
}

const valueAt = (input: Input, field: Field): unknown => {
  let value: unknown = field.place === 'body' ? input.body : input[field.place];
  for (const key of field.path) value = (value as Record<string | number, unknown> | undefined)?.[key];
  return value;
};

// ---- candidates ---------------------------------------------------------------------------------

const astral = (n: number) => '𝕏'.repeat(n);
const nested = (levels: number): Json => (levels <= 1 ? {} : { a: nested(levels - 1) });
/** `{"pad":"aaa…"}` of exactly `bytes` bytes as JSON. */
const ofJsonBytes = (bytes: number) => ({ pad: 'a'.repeat(bytes - '{"pad":""}'.length) });

/** Formats some field has: valid and nearly valid spellings of each. */
const FORMAT_TEXTS = [
  ...['00:00', '09:30', '23:59', '24:00', '9:30', '09:60', '09:30:00', '0930', ' 09:30', '09:30\n'],
  ...['2026-01-01', '2028-02-29', '2026-02-29', '2026-13-01', '2026-1-1', '20260101'],
  ...['2026-01-01T00:00:00', '2026-01-01T09:30:00', '2026-01-01 00:00', '1969-12-31', '1970-01-01'],
  ...['2999-12-31', '3000-01-01', '0001-01-01'],
  ...['#abc', '#A1B2C3', 'a1b2c3', '#abcd', '#ggg', ' #abc ', '#a1b2c3d4', 'red'],
  ...[
    '01a1fc6e-0000-7000-8000-000000000000',
    '01A1FC6E-0000-7000-8000-000000000000',
    '{01a1fc6e-0000-7000-8000-000000000000}',
    '01a1fc6e000070008000000000000000',
    'urn:uuid:01a1fc6e-0000-7000-8000-000000000000',
    '01a1fc6e-0000-7000-8000-00000000000g',
    '01a1fc6e-0000-7000-8000-0000000000',
  ],
  ...['UTC', 'Europe/Paris', 'europe/paris', 'America/New_York', 'Etc/GMT+5', 'Mars/Olympus', '+05:00'],
  ...['application/pdf', 'APPLICATION/PDF', 'image/png; q=1', 'video/mp4', 'text/html'],
  ...[`uploads/${PLACEHOLDER_ID}/a/b.pdf`, 'drafts/x/logo.png', 'uploads/../x'],
  ...['weekly', 'Weekly', 'monday', 'Monday', 'ready', 'affiliate', 'manual', 'urgent'],
  ...['true', 'false', 'True', 'yes', 'on', 'null', 'None'],
  ...['0', '1', '-1', '05', ' 5 ', '5.0', '1_0', '1e1', '0x10', '+5', '-0', '1.5'],
  ...['100', '101', '10000', '10001', '9007199254740991', '9007199254740992', '1e21'],
];

const SEED = 20_261_126;
const HOSTILE_TEXTS = [
  // Lone surrogates: high, low, after an astral character.
  ...['ok\uDC00', `${'𝕏'.repeat(3)}\uD83D`],
  ...fc.sample(hostileString(), { numRuns: 60, seed: SEED }),
  ...fc.sample(hostileNumberText(), { numRuns: 20, seed: SEED }),
];
const HOSTILE_NUMBERS = fc
  .sample(hostileNumberText(), { numRuns: 30, seed: SEED })
  .filter((text) => JSON_NUMBER.test(text))
  .map(Number)
  .filter(Number.isFinite);

/** Free-form objects: what the table stores and what it cannot. */
const OBJECTS: unknown[] = [
  {},
  { a: 1, b: 'x', c: [true, null, { d: 1.5 }] },
  { constructor: 'x', toString: 'y' },
  JSON.parse('{"__proto__":{"polluted":1}}'),
  { a: JSON.parse('{"__proto__":1}') },
  nested(16),
  nested(17),
  ofJsonBytes(16 * 1024),
  ofJsonBytes(16 * 1024 + 1),
  { n: 1e-130 },
  { n: 1e-200 },
  { n: 2 ** 53 - 1 },
  { n: 2 ** 53 },
  { n: -(2 ** 53) },
  { '\uD800': 1 },
  { s: '\uDFFF' },
];

const GENERIC: unknown[] = [ABSENT, null, true, false, 0, 1, -1, 1.5, '', 'x', [], {}, [null]];

/** Bounds of a monotone verdict over 0…hi (lengths) or -hi…hi (numbers): the smallest and largest
 * values the server accepts, starting from one it does. */
function probe(accepts: (n: number) => boolean, anchors: number[], low: number, high: number) {
  const anchor = anchors.find((n) => n >= low && n <= high && accepts(n));
  if (anchor === undefined) return [];
  const edge = (from: number, to: number) => {
    // `from` is accepted; `to` is checked, then bisected towards.
    if (accepts(to)) return to;
    let [ok, bad] = [from, to];
    for (let i = 0; i < 80 && Math.abs(bad - ok) > 1; i++) {
      const mid = Math.trunc((ok + bad) / 2);
      if (mid === ok || mid === bad) break;
      if (accepts(mid)) ok = mid;
      else bad = mid;
    }
    return ok;
  };
  return [edge(anchor, low), edge(anchor, high)];
}

const around = (bounds: (number | undefined)[], step = 1) =>
  bounds.flatMap((b) => (b === undefined ? [] : [b - step, b, b + step]));

const candidatesCache = new Map<Field, unknown[]>();
function candidates(subject: Subject, field: Field): unknown[] {
  let values = candidatesCache.get(field);
  if (!values) {
    values = candidatesOf(subject, field);
    candidatesCache.set(field, values);
  }
  return values;
}

function candidatesOf(subject: Subject, field: Field): unknown[] {
  const schema = nonNull(field.schema);
  const types = typesOf(schema);
  const text = field.place !== 'body' || (subject.kind === 'form' && field.path.length === 1);
  const server = (value: unknown) => serverVerdict(subject, withValue(subject, field, value)).ok;
  const out: unknown[] = [ABSENT, ...FORMAT_TEXTS, ...HOSTILE_TEXTS];
  const spell = (value: unknown) => (text && typeof value !== 'string' ? String(value) : value);
  if (!text) out.push(...GENERIC);
  if (types.has('string') && !isBinary(schema)) {
    const lengths = probe((n) => server(spell('a'.repeat(n))), [1, 0, 2, 3, 5, 10, 64], 0, 300_000);
    for (const n of around([
      schema.minLength as number | undefined,
      schema.maxLength as number | undefined,
      ...lengths,
    ]))
      if (n >= 0) out.push('a'.repeat(n), astral(n), `${astral(Math.max(0, n - 1))}a`);
    for (const choice of (schema.enum ?? []) as string[])
      out.push(choice, choice.toUpperCase(), ` ${choice}`);
    if (schema.format === 'date') {
      const years = probe((y) => server(`${String(y).padStart(4, '0')}-06-15`), [2026, 2000, 1990], 0, 9999);
      for (const y of around(years)) if (y >= 0 && y <= 9999) out.push(`${String(y).padStart(4, '0')}-01-01`);
    }
  }
  if (types.has('integer') || types.has('number')) {
    const baseline = valueAt(subject.baseline, field);
    const anchors = [Number(baseline), Number(schema.default), Number(schema.minimum), 0, 1, 10, 1000].filter(
      Number.isFinite,
    );
    const bounds = probe((n) => server(spell(n)), anchors, -(2 ** 62), 2 ** 62);
    const all = [schema.minimum as number | undefined, schema.maximum as number | undefined, ...bounds];
    for (const n of [...around(all), ...around(all, 0.5)]) out.push(spell(n));
    if (!text) out.push(...HOSTILE_NUMBERS, '5', ' 5 ', '1_0', 5.5, 2 ** 53, -(2 ** 53), 2 ** 63);
  }
  if (types.has('boolean')) out.push(...(text ? ['1', '0', '2'] : [1, 0, 2, 'true', 'yes', 'maybe']));
  if (types.has('array')) {
    const items = (schema.items ?? {}) as Json;
    const pool = [
      (valueAt(subject.baseline, field) as unknown[] | undefined)?.[0],
      ...((schema.default as unknown[] | undefined) ?? []),
      ...((items.enum as unknown[] | undefined) ?? []),
      ...FORMAT_TEXTS,
      'a',
    ];
    const filler = pool.find((item) => item !== undefined && check(items, item).ok && server([item]));
    if (filler !== undefined) {
      const counts = probe((n) => server(Array(n).fill(filler)), [1, 0, 2, 3], 0, 3000);
      for (const n of around([
        schema.minItems as number | undefined,
        schema.maxItems as number | undefined,
        ...counts,
      ]))
        if (n >= 0) out.push(Array(n).fill(filler));
    }
    out.push(['x'], [1], [{}], 'x');
  }
  if (types.has('object') && schema.additionalProperties === true) out.push(...OBJECTS);
  if (isBinary(schema)) out.push(FILE, 'x', '');
  else if (subject.kind === 'form' && field.place === 'body' && field.path.length === 1) out.push(FILE);
  return out;
}

// ---- rules the converter drops -------------------------------------------------------------------

/** Pipe items @valibot/to-json-schema cannot translate: it leaves them out of the document (our
 * conversion runs in errorMode 'ignore', since our field constructors carry their JSON Schema). */
const UNTRANSLATED = new Set(['check', 'raw_check', 'partial_check', 'raw_transform', 'transform', 'custom']);

interface SchemaNode {
  kind?: string;
  type?: string;
  pipe?: SchemaNode[];
  entries?: Record<string, SchemaNode>;
  item?: SchemaNode;
  wrapped?: SchemaNode;
  options?: unknown[];
  key?: SchemaNode;
  value?: SchemaNode;
  metadata?: { jsonSchema?: { $model?: SchemaNode; $items?: SchemaNode } };
}
const flatten = (pipe: SchemaNode[]): SchemaNode[] =>
  pipe.flatMap((item) => (item.pipe ? flatten(item.pipe) : [item]));
const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && 'kind' in value;

/**
 * Every untranslated item of a request schema, unless a metadata action (the JSON Schema or the
 * description the document shows instead) follows it in its flattened pipe, as the converter reads it.
 */
function untranslated(root: SchemaNode, at: string, found: string[] = [], seen = new Set<SchemaNode>()) {
  if (seen.has(root)) return found;
  seen.add(root);
  const items = root.pipe ? flatten(root.pipe) : [root];
  const lastMetadata = items.findLastIndex((item) => item.type === 'metadata' || item.type === 'description');
  for (const [i, item] of items.entries()) {
    if (UNTRANSLATED.has(item.type!) && i > lastMetadata) found.push(`${at}: a ${item.type} action`);
    const children: [string, unknown][] = [
      ...Object.entries(item.entries ?? {}).map(([key, entry]): [string, unknown] => [`${at}.${key}`, entry]),
      [`${at}[]`, item.item],
      [at, item.wrapped],
      [at, item.key],
      [at, item.value],
      ...(item.options ?? []).map((option): [string, unknown] => [at, option]),
      [at, item.metadata?.jsonSchema?.$model],
      [`${at}[]`, item.metadata?.jsonSchema?.$items],
    ];
    for (const [path, child] of children) if (isNode(child)) untranslated(child, path, found, seen);
  }
  return found;
}

// ---- the same requests over HTTP ------------------------------------------------------------------

const urlOf = (route: Route, input: Input) => {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(input.path[name] ?? ''),
  );
  const query = new URLSearchParams(input.query).toString();
  return query ? `${path}?${query}` : path;
};

const httpOptions = (subject: Subject, input: Input) => {
  if (subject.kind === 'json')
    return { headers: input.header, ...(input.body === undefined ? {} : { json: input.body }) };
  const parts = Object.entries(input.body as Record<string, unknown>).map(([name, value]) =>
    isUploadedFile(value)
      ? { name, content: value.content, filename: value.filename, type: value.mimetype }
      : { name, content: String(value) },
  );
  const form = multipart(...parts);
  return { body: form.body, headers: { ...input.header, ...form.headers } };
};

// ---- the measurement ----------------------------------------------------------------------------

const show = (value: unknown): string => {
  if (value === ABSENT) return '(absent)';
  if (isUploadedFile(value)) return '(a file part)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 60)}… (${text.length} chars)` : text;
};
const where = (d: Disagreement) =>
  `${routeKey(d.subject.route)} [${d.subject.kind}] ${d.field.place}${d.field.path.map((k) => `.${k}`).join('')}`;
const describeDisagreement = (d: Disagreement) =>
  `${where(d)} = ${show(d.value)}: document ${d.doc.ok ? 'accepts' : `refuses (${d.doc.why})`}, server ${
    d.server.ok
      ? 'accepts'
      : `422 ${d.server.items!.map((item) => `${item.type} at ${item.loc.join('.')}: ${item.msg}`).join('; ')}`
  }`;

function measure(subject: Subject) {
  const disagreements: Disagreement[] = [];
  let compared = 0;
  for (const field of fieldsOfSubject(subject)) {
    const seen = new Set<string>();
    for (const value of candidates(subject, field)) {
      const key =
        value === ABSENT
          ? 'absent'
          : isUploadedFile(value)
            ? 'file'
            : `${typeof value}:${JSON.stringify(value)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (value === ABSENT && typeof field.path.at(-1) === 'number') continue;
      const input = withValue(subject, field, value);
      const doc = documentVerdict(subject, input);
      const server = serverVerdict(subject, input);
      compared++;
      if (doc.ok !== server.ok) disagreements.push({ subject, field, value, doc, server });
    }
  }
  return { disagreements, compared };
}

let subjects: Subject[] = [];
const excusedBy = new Map<string, number>(EXCEPTIONS.map((e) => [e.name, 0]));
before(async () => {
  subjects = (await Promise.all(routes.map(subjectsOf))).flat();
});

describe('request schemas: the OpenAPI document against the server’s validation', () => {
  it('starts from requests both accept (the sample events, completed)', () => {
    assert.ok(subjects.length >= 30, `only ${subjects.length} routes with inputs`);
    for (const subject of subjects) {
      const label = `${routeKey(subject.route)} [${subject.kind}]`;
      const server = serverVerdict(subject, subject.baseline);
      assert.ok(server.ok, `${label}: the server refuses the baseline: ${JSON.stringify(server.items)}`);
      const doc = documentVerdict(subject, subject.baseline);
      assert.ok(doc.ok, `${label}: the document refuses the baseline: ${doc.why}`);
    }
  });

  it('leave no rule of theirs out of the document unsaid (no custom check after the last metadata)', () => {
    const dropped = subjects.flatMap(({ route, options, kind }) =>
      (
        [
          ['path', options.path],
          ['query', options.query],
          ['header', options.header],
          ['body', kind === 'form' ? options.form?.schema : options.body],
        ] as const
      ).flatMap(([place, schema]) =>
        schema ? untranslated(schema as SchemaNode, `${routeKey(route)} [${kind}] ${place}`) : [],
      ),
    );
    assert.deepEqual([...new Set(dropped)], []);
  });

  it('agree on every candidate value of every field, but for the named exceptions', () => {
    const unexcused: string[] = [];
    let compared = 0;
    for (const subject of subjects) {
      const result = measure(subject);
      compared += result.compared;
      for (const d of result.disagreements) {
        const exception = EXCEPTIONS.find((e) => e.excuses(d));
        if (exception) excusedBy.set(exception.name, excusedBy.get(exception.name)! + 1);
        else unexcused.push(describeDisagreement(d));
        if (process.env.FIDELITY_REPORT)
          console.log(`${exception ? `[${exception.name}] ` : '[GAP] '}${describeDisagreement(d)}`);
      }
    }
    assert.ok(compared > 10_000, `only ${compared} comparisons`);
    const shown = unexcused.slice(0, 60).join('\n');
    assert.ok(unexcused.length === 0, `${unexcused.length} disagreements (the first 60):\n${shown}`);
  });

  it('measures what the HTTP pipeline answers (a sample through the harness: the same 422 items)', async () => {
    const h = await startHarness();
    let calls = 0;
    try {
      for (const subject of subjects) {
        // The signed callback answers 503 (no signing secret here) before it validates anything.
        if (subject.options.verify) continue;
        // Per field the first refused candidate; per route one accepted (they write, and are slower).
        let accepted = false;
        for (const field of fieldsOfSubject(subject)) {
          const picked = new Map<boolean, Input>();
          for (const value of candidates(subject, field)) {
            if (
              value === ABSENT ||
              hasLoneSurrogate(value) ||
              (field.place === 'path' && !/^[\w.{}:-]+$/.test(String(value)))
            )
              continue;
            const input = withValue(subject, field, value);
            const ok = serverVerdict(subject, input).ok;
            if (ok && accepted) continue;
            if (!picked.has(ok)) picked.set(ok, input);
            if (picked.has(false) && (accepted || picked.has(true))) break;
          }
          accepted ||= picked.has(true);
          for (const input of picked.values()) {
            const verdict = serverVerdict(subject, input);
            const res = await h.call(
              subject.route.method,
              urlOf(subject.route, input),
              httpOptions(subject, input),
            );
            calls++;
            const label = `${routeKey(subject.route)} [${subject.kind}] ${field.place}.${field.path.join('.')}`;
            if (verdict.ok) assert.notEqual(res.status, 422, `${label}: ${res.text.slice(0, 300)}`);
            else {
              assert.equal(res.status, 422, `${label}: ${res.status} ${res.text.slice(0, 300)}`);
              const items = (list: ValidationItem[]) =>
                list.map(({ type, loc, msg }) => ({ type, loc, msg }));
              assert.deepEqual(items(res.body.detail), items(verdict.items!), label);
            }
          }
        }
      }
    } finally {
      await h.close();
    }
    assert.ok(calls > 150, `only ${calls} requests`);
  });

  it('uses every named exception (a stale one would hide the next gap)', () => {
    for (const exception of EXCEPTIONS)
      assert.ok(excusedBy.get(exception.name)! > 0, `"${exception.name}" excuses nothing: remove it`);
  });
});
