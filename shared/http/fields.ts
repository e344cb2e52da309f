// Field schemas that validate like pydantic v2 in lax mode and fail with FastAPI's error items.
// Each valibot message carries the whole FastAPI error (type, msg, ctx) encoded as JSON, so the
// mapper in validation.ts only adds `loc` and `input`. One place for every error text.
import * as v from 'valibot';
import { codePointLength, trimEdges } from '../strings.ts';
import { PythonNumber } from './python-json.ts';
import { uuidParseError } from './uuid.ts';

export interface FastApiError {
  type: string;
  msg: string;
  ctx?: Record<string, unknown>;
}

const MARK = '\u0000fastapi:';

export const fastapi = (type: string, msg: string, ctx?: Record<string, unknown>): string =>
  MARK + JSON.stringify(ctx === undefined ? { type, msg } : { type, msg, ctx });

export const decodeFastapi = (message: string): FastApiError | undefined =>
  message.startsWith(MARK)
    ? (JSON.parse(message.slice(MARK.length), reviveFloat) as FastApiError)
    : undefined;

/** A float in ctx (a float field's bound, `"ge":0.0` on the wire) crosses the message tagged, and is a
 * PythonNumber once decoded. */
const FLOAT_TAG = '$float';
const floatCtx = (n: number) => ({ [FLOAT_TAG]: n });
const reviveFloat = (_key: string, value: unknown) =>
  isObject(value) && FLOAT_TAG in value ? PythonNumber.float(value[FLOAT_TAG] as number) : value;

/** JSON Schema carried at the end of each field's pipe (a no-op at run time), for the OpenAPI
 * document: shared/openapi converts it in place of the custom checks it cannot read. */
export type JsonHint = Record<string, unknown> & { $model?: v.GenericSchema; $items?: v.GenericSchema };
const hinted = <S extends v.GenericSchema>(schema: S, jsonSchema: JsonHint) =>
  v.pipe(schema, v.metadata({ jsonSchema }));
const bounds = (names: [string, string], values: [number | undefined, number | undefined]) =>
  Object.fromEntries(names.flatMap((name, i) => (values[i] === undefined ? [] : [[name, values[i]]])));

const plural = (limit: number, word: string) => `${limit} ${word}${limit === 1 ? '' : 's'}`;

/** What Python's repr() escapes besides quotes and `\\ \n \r \t`: characters str.isprintable()
 * refuses (controls, format characters, lone surrogates, unassigned, separators other than space). */
const NOT_PRINTABLE = /(?! )[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/gu;

/** Python's repr() of a str or number, as pydantic prints literal choices. */
export const pythonRepr = (value: string | number | boolean | null): string => {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const escaped = value
    .replaceAll('\\', '\\\\')
    .replaceAll('\n', '\\n')
    .replaceAll('\r', '\\r')
    .replaceAll('\t', '\\t')
    .replaceAll(quote, `\\${quote}`)
    .replace(NOT_PRINTABLE, (ch) => {
      const code = ch.codePointAt(0)!;
      const [prefix, width] = code < 0x100 ? ['x', 2] : code < 0x10000 ? ['u', 4] : ['U', 8];
      return `\\${prefix}${code.toString(16).padStart(width, '0')}`;
    });
  return quote + escaped + quote;
};

/** `'a', 'b' or 'c'`: pydantic's join of expected values. */
export const expectedChoices = (values: readonly (string | number)[]): string => {
  const reprs = values.map(pythonRepr);
  return reprs.length <= 1 ? (reprs[0] ?? '') : `${reprs.slice(0, -1).join(', ')} or ${reprs.at(-1)}`;
};

// ---- scalars -------------------------------------------------------------------------------

/**
 * pydantic's `string_unicode`: a lone surrogate (JSON `"\ud800"`) has no UTF-8, so Python cannot read
 * it, nor could a strict client read it back. A transformation, not a check: its failure stops the
 * length checks after it and any check a caller pipes after `string()`, as pydantic reports only it.
 */
const notUnicode = fastapi(
  'string_unicode',
  'Input should be a valid string, unable to parse raw data as a unicode string',
);
const wellFormed = v.rawTransform<string, string>(({ dataset, addIssue, NEVER }) => {
  if (dataset.value.isWellFormed()) return dataset.value;
  addIssue({ message: notUnicode });
  return NEVER;
});

export const string = (opts: { min?: number; max?: number } = {}) => {
  const checks: v.PipeItem<string, string, v.BaseIssue<unknown>>[] = [wellFormed];
  if (opts.min !== undefined) {
    const min = opts.min;
    checks.push(
      v.check(
        (s) => codePointLength(s) >= min,
        fastapi('string_too_short', `String should have at least ${plural(min, 'character')}`, {
          min_length: min,
        }),
      ),
    );
  }
  if (opts.max !== undefined) {
    const max = opts.max;
    checks.push(
      v.check(
        (s) => codePointLength(s) <= max,
        fastapi('string_too_long', `String should have at most ${plural(max, 'character')}`, {
          max_length: max,
        }),
      ),
    );
  }
  return hinted(v.pipe(v.string(fastapi('string_type', 'Input should be a valid string')), ...checks), {
    type: 'string',
    ...bounds(['minLength', 'maxLength'], [opts.min, opts.max]),
  });
};

/** The `ge`/`le` error a number breaks, if any. A float field's bound is a float in ctx (`0.0`) but
 * printed Rust-style in msg (`0`). */
const outOfBounds = (value: number, opts: { ge?: number; le?: number }, float: boolean) => {
  const bound = (n: number) => (float ? floatCtx(n) : n);
  if (opts.ge !== undefined && value < opts.ge)
    return fastapi('greater_than_equal', `Input should be greater than or equal to ${opts.ge}`, {
      ge: bound(opts.ge),
    });
  if (opts.le !== undefined && value > opts.le)
    return fastapi('less_than_equal', `Input should be less than or equal to ${opts.le}`, {
      le: bound(opts.le),
    });
  return undefined;
};

/** A parser's refusal: the encoded FastAPI error it fails with. */
class Refusal {
  constructor(readonly message: string) {}
}
const refuse = (type: string, msg: string, ctx?: Record<string, unknown>) =>
  new Refusal(fastapi(type, msg, ctx));

/** NaN and ±inf, refused where pydantic's default takes them: they cannot be echoed back as JSON. */
const notFinite = () => refuse('finite_number', 'Input should be a finite number');

/** A field that takes any JSON value and converts it as pydantic's lax mode does, or refuses it. */
const coerced = <T>(parse: (input: unknown) => T | Refusal, jsonSchema: JsonHint) =>
  hinted(
    v.pipe(
      v.unknown(),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const result = parse(dataset.value);
        if (!(result instanceof Refusal)) return result;
        addIssue({ message: result.message });
        return NEVER;
      }),
    ),
    jsonSchema,
  );

const withinBounds = (value: number, opts: { ge?: number; le?: number }, float = false) => {
  const outside = outOfBounds(value, opts, float);
  return outside ? new Refusal(outside) : value;
};

const INT_TEXT = /^[+-]?\d+(?:_\d+)*(?:\.0+)?$/;
/**
 * pydantic reads an integer's text as a JSON integer first, and only that read reports a size: text that
 * begins as one (`-?[1-9]\d*`) for more than MAX_INT_TEXT characters, sign included, is int_parsing_size
 * whatever follows. Other text is cleaned (trimmed; `+`, `_`, a `.0` and leading zeros dropped) and read
 * again, and past MAX_INT_TEXT characters that read is merely int_parsing (`+1` and 4,300 zeros).
 */
const JSON_INT_HEAD = /^-?[1-9]\d*/;
const MAX_INT_TEXT = 4300;
/** What pydantic trims around a number's text: Rust's white space (U+0085 too, but not U+FEFF, which
 * JavaScript's trim() takes). */
const RUST_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
/** The text without that space at either end (a pattern anchored at the end took 18–23 s for a 128 KB
 * field: a function timeout where a 422 was due). */
const rustTrimmed = (text: string) => trimEdges(text, (c) => RUST_SPACE.test(c));
/** pydantic refuses a float outside i64 with `int_parsing_size` (JSON.parse cannot tell 1e20 from an
 * integer literal, so both are refused). */
const I64_LIMIT = 2 ** 63;
const exceededSize = () =>
  refuse('int_parsing_size', 'Unable to parse input string as an integer, exceeded maximum size');

/**
 * pydantic's lax int: whole floats, booleans and numeric strings are accepted. Every integer field is
 * also capped at 2^53 - 1 (`less_than_equal`), our documented limit: past it JavaScript loses digits
 * and DynamoDB's document client refuses to store the number.
 */
export const integer = (opts: { ge?: number; le?: number } = {}) => {
  const bounded = { ...opts, le: Math.min(opts.le ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) };
  return coerced(
    (input) => {
      if (typeof input === 'boolean') return withinBounds(input ? 1 : 0, bounded);
      if (typeof input === 'number') {
        if (!Number.isFinite(input)) return notFinite();
        if (!Number.isInteger(input))
          return refuse(
            'int_from_float',
            'Input should be a valid integer, got a number with a fractional part',
          );
        if (input >= I64_LIMIT || input < -I64_LIMIT) return exceededSize(); // i64: -2^63 … 2^63 - 1
        return withinBounds(input, bounded);
      }
      if (typeof input !== 'string') return refuse('int_type', 'Input should be a valid integer');
      if ((JSON_INT_HEAD.exec(input)?.[0].length ?? 0) > MAX_INT_TEXT) return exceededSize();
      const text = rustTrimmed(input);
      const digits = text
        .replace(/^\+/, '')
        .replaceAll('_', '')
        .replace(/\.0*$/, '')
        .replace(/^(-?)0+(?=\d)/, '$1');
      if (!INT_TEXT.test(text) || digits.length > MAX_INT_TEXT)
        return refuse('int_parsing', 'Input should be a valid integer, unable to parse string as an integer');
      return withinBounds(Number(digits), bounded);
    },
    { type: 'integer', ...bounds(['minimum', 'maximum'], [bounded.ge, bounded.le]) },
  );
};

// `\d+(?:\.\d*)?`, not the same language written `\d+\.?\d*`, which tries every split of a digit run
// that fails after it (the square of the text).
const FLOAT_TEXT = /^[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?|inf|infinity|nan)$/i;

/**
 * A number's text as pydantic reads it: text with `_` is taken as it is (no trimming), with `_`
 * anywhere but at either end or twice in a row, then dropped (`1_e3` is 1000); other text is trimmed
 * as Rust trims (rustTrimmed). Then Rust's float syntax: `5.`, `.5`, `1e3`, `inf`, `nan`.
 */
const parseFloatText = (input: string): number | Refusal => {
  const misplacedUnderscore = /^_|_$|__/.test(input);
  const text = input.includes('_') ? input.replaceAll('_', '') : rustTrimmed(input);
  if (misplacedUnderscore || !FLOAT_TEXT.test(text))
    return refuse('float_parsing', 'Input should be a valid number, unable to parse string as a number');
  const lower = text.toLowerCase().replace(/^\+/, '');
  if (lower.endsWith('nan')) return Number.NaN;
  if (lower.includes('inf')) return lower.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
};

/** pydantic's lax float (number). Bounds are printed Rust-style in msg and as floats in ctx. */
export const number = (opts: { ge?: number; le?: number } = {}) =>
  coerced(
    (input) => {
      let value: number | Refusal;
      if (typeof input === 'boolean' || typeof input === 'number') value = Number(input);
      else if (typeof input === 'string') value = parseFloatText(input);
      else return refuse('float_type', 'Input should be a valid number');
      if (value instanceof Refusal) return value;
      if (!Number.isFinite(value)) return notFinite();
      return withinBounds(value, opts, true);
    },
    { type: 'number', ...bounds(['minimum', 'maximum'], [opts.ge, opts.le]) },
  );

const TRUE_TEXT = new Set(['1', 't', 'y', 'on', 'yes', 'true']);
const FALSE_TEXT = new Set(['0', 'f', 'n', 'no', 'off', 'false']);

/** pydantic's lax bool: the words of §4 (case-insensitive, untrimmed), 0/1. */
export const boolean = () =>
  coerced(
    (input) => {
      if (typeof input === 'boolean') return input;
      if (typeof input === 'string') {
        const text = input.toLowerCase();
        if (TRUE_TEXT.has(text)) return true;
        if (FALSE_TEXT.has(text)) return false;
      } else if (input === 0 || input === 1) return input === 1;
      return typeof input === 'string' || (typeof input === 'number' && Number.isInteger(input))
        ? refuse('bool_parsing', 'Input should be a valid boolean, unable to interpret input')
        : refuse('bool_type', 'Input should be a valid boolean');
    },
    { type: 'boolean' },
  );

/** A UUID in any form pydantic accepts, normalised to lower-case hyphenated. */
export const uuid = () =>
  coerced(
    (input) => {
      if (typeof input !== 'string')
        return refuse('uuid_type', 'UUID input should be a string, bytes or UUID object');
      if (!input.isWellFormed()) return new Refusal(notUnicode); // pydantic reads it as UTF-8 first
      const parsed = uuidParseError(input);
      if ('error' in parsed)
        return refuse('uuid_parsing', `Input should be a valid UUID, ${parsed.error}`, {
          error: parsed.error,
        });
      return parsed.uuid;
    },
    { type: 'string', format: 'uuid' },
  );

export const literal = <const T extends readonly [string, ...string[]]>(choices: T) => {
  const expected = expectedChoices(choices);
  return hinted(v.picklist(choices, fastapi('literal_error', `Input should be ${expected}`, { expected })), {
    type: 'string',
    enum: [...choices],
  });
};

// ---- containers ----------------------------------------------------------------------------

/** A JSON object validated as a pydantic model: extra keys are ignored, as FastAPI does by default. */
const notAModel = fastapi(
  'model_attributes_type',
  'Input should be a valid dictionary or object to extract fields from',
);
export const isObject = (input: unknown): input is Record<string, unknown> =>
  typeof input === 'object' && input !== null && !Array.isArray(input);

/** How far `offset` may go in every offset-paged list: a page reads offset + limit items, so the cap
 * bounds that read. */
export const MAX_OFFSET = 10_000;

/** The page size of an offset-paged list. */
export interface OffsetPageLimits {
  limit: { default: number; min: number; max: number };
}

/** `limit`, `offset` (0 to MAX_OFFSET, default 0) and `before` query fields, as every offset-paged
 * list declares them. `before` is the id of the last entry a client received: the page starts at the
 * next older entry (newest-first lists), whatever was created since, and `offset` counts from there.
 * Only a place in the caller's own list: any id is accepted, whoever's. */
export const offsetPage = (limits: OffsetPageLimits) => ({
  limit: v.pipe(
    v.optional(integer({ ge: limits.limit.min, le: limits.limit.max }), limits.limit.default),
    v.description('How many entries the page holds at most.'),
  ),
  offset: v.pipe(
    v.optional(integer({ ge: 0, le: MAX_OFFSET }), 0),
    v.description(
      'How many entries to skip (counted from `before` when given). A deep offset reads past every skipped entry (on the owner lists and workspace tasks, past the first page, a slim index entry each); `before` reads none.',
    ),
  ),
  before: v.pipe(
    optionalNullable(uuid()),
    v.description(
      'The id of the last entry of the page received: the page starts at the next one, whatever was created since (newest first). Any id is accepted; one that is not in the list starts where it would sort.',
    ),
  ),
});

export const model = <const E extends v.ObjectEntries>(entries: E) => {
  const object = v.object(entries, notAModel);
  // valibot's object() takes arrays for objects; pydantic does not.
  return hinted(v.pipe(v.custom<Record<string, unknown>>(isObject, notAModel), object), { $model: object });
};

export const list = <S extends v.GenericSchema>(item: S, opts: { min?: number; max?: number } = {}) => {
  const notAList = fastapi('list_type', 'Input should be a valid list');
  const min = opts.min ?? 0;
  const max = opts.max ?? Number.POSITIVE_INFINITY;
  const items = v.array(item, notAList);
  const lengthError = (type: 'too_long' | 'too_short', limit: number, actual: number) => {
    const [bound, most] = type === 'too_long' ? ['max_length', 'most'] : ['min_length', 'least'];
    return fastapi(
      type,
      `List should have at ${most} ${plural(limit, 'item')} after validation, not ${actual}`,
      {
        field_type: 'List',
        [bound]: limit,
        actual_length: actual,
      },
    );
  };
  // As pydantic: an overlong list is refused before its items are read (only `too_long`); a short one
  // only when every item is valid (else the items' errors alone). Both echo the list as sent: after
  // either issue valibot skips the item schema.
  const length = v.rawCheck<unknown[]>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const actual = dataset.value.length;
    if (actual > max) addIssue({ message: lengthError('too_long', max, actual) });
    else if (actual < min && v.is(items, dataset.value))
      addIssue({ message: lengthError('too_short', min, actual) });
  });
  return hinted(v.pipe(v.array(v.unknown(), notAList), length, items), {
    type: 'array',
    $items: item,
    ...bounds(['minItems', 'maxItems'], [opts.min, opts.max]),
  });
};

/**
 * A rule over several fields, as pydantic's `model_validator(mode="after")`: checked only once every
 * field is valid, and failing as one `value_error` at the model's location with the input as sent.
 */
export const modelRule = <S extends v.GenericSchema>(
  schema: S,
  rule: (value: v.InferOutput<S>) => boolean,
  reason: string,
) =>
  // The OpenAPI document describes the model itself (see the hints above), and states the rule,
  // which JSON Schema cannot, in the words of its 422.
  hinted(
    v.pipe(
      v.unknown(),
      v.check((input) => {
        const fields = v.safeParse(schema, input);
        return !fields.success || rule(fields.output);
      }, valueError(reason)),
      schema,
    ),
    { $model: schema, description: `Also checked by the server (a 422 value_error otherwise): ${reason}.` },
  );

/**
 * A rule over a list's items together, checked once every item is valid (as a pydantic validator of the
 * list): `breaksAt` names the first item that breaks it, where the 422 value_error points, with the
 * item as sent as its input.
 */
export const listRule = <S extends v.GenericSchema<unknown, unknown[]>>(
  schema: S,
  breaksAt: (items: v.InferOutput<S>) => number | undefined,
  reason: string,
) =>
  hinted(
    v.pipe(
      v.unknown(),
      v.rawCheck(({ dataset, addIssue }) => {
        const items = v.safeParse(schema, dataset.value);
        const at = items.success ? breaksAt(items.output) : undefined;
        if (at === undefined) return;
        const sent = dataset.value as unknown[];
        addIssue({
          message: valueError(reason),
          input: sent[at],
          path: [{ type: 'array', origin: 'value', input: sent, key: at, value: sent[at] }],
        });
      }),
      schema,
    ),
    {
      $model: schema,
      description: `Also checked by the server (a 422 value_error at the item otherwise): ${reason}.`,
    },
  );

/**
 * How deep a free-form object may nest (the object itself is level 1). DynamoDB refuses maps and
 * lists nested more than 32 levels inside an item (dynalite does not check), and the object sits a
 * level or more inside its record: past this it would be a 500 from the store, not a 422.
 */
export const DICT_MAX_DEPTH = 16;

/** How large a free-form object may be as JSON: the same for every such field (docs/decisions.md). */
export const DICT_MAX_BYTES = 16 * 1024;

/** The one key no stored object may have: the SDK's marshaller assigns keys one by one, and
 * `map['__proto__'] = …` sets a prototype instead of a key, so the value would be lost. */
const UNSTORABLE_KEY = '__proto__';

/** The smallest non-zero magnitude DynamoDB stores (it answers "Number underflow" below it). */
const DYNAMO_SMALLEST_NUMBER = 1e-130;

const DICT_RULES = {
  deep: `object nests deeper than ${DICT_MAX_DEPTH} levels`,
  // The document client refuses larger numbers (it would lose digits), DynamoDB smaller ones.
  number: `numbers must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}, and 0 or at least ${DYNAMO_SMALLEST_NUMBER} in size`,
  unstorable: `"${UNSTORABLE_KEY}" is not accepted as a key`,
  // DynamoDB refuses an empty attribute name at any depth ("Empty attribute name"); dynalite stores it.
  emptyKey: 'keys must not be empty',
  illFormed: 'keys and strings must be valid Unicode: a lone surrogate (U+D800 to U+DFFF) is not accepted',
};

const storableNumber = (n: number) =>
  Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= DYNAMO_SMALLEST_NUMBER);

/** The first rule a free-form value breaks, in one walk: nesting, `__proto__`, empty keys, lone
 * surrogates, numbers the table cannot store. */
function dictProblem(value: unknown, levels = DICT_MAX_DEPTH): string | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : DICT_RULES.illFormed;
  if (typeof value === 'number') return storableNumber(value) ? undefined : DICT_RULES.number;
  if (typeof value !== 'object' || value === null) return undefined;
  if (levels === 0) return DICT_RULES.deep;
  if (!Array.isArray(value) && Object.hasOwn(value, UNSTORABLE_KEY)) return DICT_RULES.unstorable;
  if (!Array.isArray(value) && Object.hasOwn(value, '')) return DICT_RULES.emptyKey;
  for (const [key, child] of Object.entries(value)) {
    const problem = key.isWellFormed() ? dictProblem(child, levels - 1) : DICT_RULES.illFormed;
    if (problem) return problem;
  }
  return undefined;
}

/** The input as the schema reads it, or an `Error` naming each broken rule (thrown before anything is
 * written): the agents' writes, which take no HTTP body (a 422 is for requests). */
export function refuseInvalid<S extends v.GenericSchema>(
  what: string,
  schema: S,
  input: unknown,
): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const problems = result.issues.map((issue) => {
    const at = issue.path?.map((step) => String(step.key)).join('.');
    const text = decodeFastapi(issue.message)?.msg ?? issue.message;
    return at ? `${at}: ${text}` : text;
  });
  throw new Error(`Invalid ${what}: ${problems.join('; ')}`);
}

/**
 * Refuses, with an `Error` naming each field and rule, named free JSON of a write that takes no HTTP
 * body (the agents' `output_data`, a member's `current_activity`, …) by the free-form object rules but
 * the size (its record's budget bounds that): DynamoDB refuses an empty key or nesting past 32 levels,
 * both of which dynalite stores, and the marshaller drops a `__proto__` key.
 */
export function refuseUnstorable(what: string, fields: Record<string, unknown>): void {
  const problems = Object.entries(fields).flatMap(([name, value]) => {
    const problem = dictProblem(value);
    return problem ? [`${name}: ${problem}`] : [];
  });
  if (problems.length > 0) throw new Error(`Invalid ${what}: ${problems.join('; ')}`);
}

const dictSizeRule = (name: string) => `${name} must be at most ${DICT_MAX_BYTES} bytes as JSON`;

/** The OpenAPI schema of a free-form object: JSON Schema has no keyword for its size in bytes or for
 * what the table can store, so the description states each rule in the words of its 422. */
export const dictJsonSchema = (opts: { name?: string } = {}): JsonHint => ({
  type: 'object',
  additionalProperties: true,
  description: `Any JSON object the table can store: the server refuses one that breaks a rule (a 422 value_error in these words): ${[dictSizeRule(opts.name ?? 'object'), ...Object.values(DICT_RULES)].join('; ')}.`,
});

/**
 * A free-form JSON object (pydantic `dict[str, Any]`): DICT_MAX_DEPTH levels deep at most, with no
 * `__proto__` or empty key at any level (neither could be stored), no lone surrogate in a key or string (as
 * `string()`: it could not be sent back as UTF-8), no number the table cannot store (past ±(2^53 − 1),
 * or non-zero and under 1e-130 in size), and at most DICT_MAX_BYTES as JSON (DynamoDB stores
 * numbers deep in lists in up to twice their JSON size, shared/db/item-size.ts, so an unbounded one
 * could outgrow the 400 KB item its body fitted in). The first rule broken is the one `value_error`,
 * as pydantic stops at a field's first failing validator. `name` words the size error.
 */
export const dict = (opts: { name?: string } = {}) =>
  hinted(
    v.pipe(
      v.custom<Record<string, unknown>>(isObject, fastapi('dict_type', 'Input should be a valid dictionary')),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        const problem =
          dictProblem(dataset.value) ??
          (Buffer.byteLength(JSON.stringify(dataset.value)) > DICT_MAX_BYTES
            ? dictSizeRule(opts.name ?? 'object')
            : undefined);
        if (problem) addIssue({ message: valueError(problem) });
      }),
    ),
    dictJsonSchema(opts),
  );

/** `T | None = None`: optional and nullable, stored as null when absent. */
export const optionalNullable = <S extends v.GenericSchema>(schema: S) =>
  v.optional(v.nullable(schema), null);

/** `?limit=&after=`: one page of a cursor-paged list; `after` is the last id of the previous page
 * (the response's `next_after`). */
export const cursorPageQuery = (limits: { min: number; max: number; default: number }) =>
  model({
    limit: v.pipe(
      v.optional(integer({ ge: limits.min, le: limits.max }), limits.default),
      v.description('How many entries the page holds at most.'),
    ),
    after: v.pipe(
      optionalNullable(uuid()),
      v.description("The previous page's `next_after`: the page starts at the entry after it."),
    ),
  });

/** A failed custom rule: pydantic's `value_error`, whose ctx.error serialises as {}. */
export const valueError = (reason: string) => fastapi('value_error', `Value error, ${reason}`, { error: {} });
