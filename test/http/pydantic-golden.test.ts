// Our field builders against real pydantic: test/fixtures/pydantic-golden.json holds pydantic 2.13's
// answer (a value, or the 422 `detail` FastAPI would send) for thousands of generated inputs per field
// kind; scripts/pydantic-golden.py made it (run it again, with pydantic, after changing the inputs).
// Each input goes the way a request's would: its JSON text through our body parser, the field (built
// as the golden file's `fields` configure it) inside a model, the 422 through the number-aware echo and
// Starlette-style rendering. Every answer must be pydantic's, save the documented exceptions below.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type * as v from 'valibot';
import { RequestValidationError } from '../../shared/http/errors.ts';
import {
  boolean,
  dict,
  integer,
  list,
  literal,
  model,
  number,
  optionalNullable,
  string,
  uuid,
} from '../../shared/http/fields.ts';
import { decodePythonJson, encodePythonJson } from '../../shared/http/python-json.ts';
import { echoNumberLiterals, type RequestSchemas, validateRequest } from '../../shared/http/validation.ts';
import { CALENDAR_YEARS, CalendarQuery } from '../../shared/teams/schemas.ts';

interface FieldConfig {
  kind: string;
  min?: number;
  max?: number;
  ge?: number;
  le?: number;
  choices?: [string, ...string[]];
  item?: FieldConfig;
  inner?: FieldConfig;
  source?: 'query';
  name?: string;
}
type Answer =
  | { ok: string; nonfinite?: true }
  | { err: string; unsendable?: 'nan' | 'surrogate'; nonfinite?: true };
/** What an exception expects of us when no exact text can be named: any error of that type. */
type Expected = Answer | { anyErrorOf: string };
type Case = [field: string, input: string | null, answer: Answer];
interface Golden {
  pydantic: string;
  fields: Record<string, FieldConfig>;
  cases: Case[];
}

const golden = JSON.parse(
  readFileSync(new URL('../fixtures/pydantic-golden.json', import.meta.url), 'utf8'),
) as Golden;

const build = (cfg: FieldConfig): v.GenericSchema => {
  switch (cfg.kind) {
    case 'string':
      return string({ min: cfg.min, max: cfg.max });
    case 'integer':
      return integer({ ge: cfg.ge, le: cfg.le });
    case 'number':
      return number({ ge: cfg.ge, le: cfg.le });
    case 'boolean':
      return boolean();
    case 'uuid':
      return uuid();
    case 'literal':
      return literal(cfg.choices!);
    case 'list':
      return list(build(cfg.item!), { min: cfg.min, max: cfg.max });
    case 'optional':
      return optionalNullable(build(cfg.inner!));
    case 'dict':
      return dict();
    default:
      throw new Error(`no builder for ${cfg.kind}`);
  }
};

/** Our answer to one case: the value, or the 422 detail's text as we would send it. */
type Ours = { ok: unknown } | { err: string };

function ours(cfg: FieldConfig, schemas: RequestSchemas, input: string | null): Ours {
  const parts = { path: {}, query: {} as Record<string, string>, header: {}, body: undefined as unknown };
  let bodyText: string | undefined;
  if (cfg.source === 'query') {
    if (input !== null) parts.query[cfg.name!] = JSON.parse(input) as string;
  } else {
    bodyText = input === null ? '{}' : `{"f":${input}}`;
    const decoded = decodePythonJson(bodyText);
    assert.ok(decoded.ok, `the body parser reads ${bodyText}`);
    parts.body = decoded.value;
  }
  try {
    const out = validateRequest(schemas, parts);
    // An absent field without a default is undefined here, None in pydantic.
    const fields = (cfg.source === 'query' ? out.query : out.body) as Record<string, unknown>;
    return { ok: fields[cfg.name ?? 'f'] ?? null };
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    echoNumberLiterals(error.items, bodyText);
    return { err: encodePythonJson(error.items) };
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** NaN or an infinity written in an echo (Python's json.dumps): FastAPI cannot send it. */
const NON_FINITE = /(?<=[:[,])(?:NaN|-?Infinity)(?=[,\]}])/g;
const FINITE_NUMBER = { type: 'finite_number', msg: 'Input should be a finite number' };
const INT_TOO_BIG = {
  type: 'int_parsing_size',
  msg: 'Unable to parse input string as an integer, exceeded maximum size',
};
const item = (loc: unknown[], error: { type: string; msg: string }, input: unknown) =>
  `[{"type":"${error.type}","loc":${JSON.stringify(loc)},"msg":"${error.msg}","input":${input}}]`;
const loc = (cfg: FieldConfig) => [cfg.source ?? 'body', cfg.name ?? 'f'];

/**
 * Where we answer otherwise on purpose, each a decision of docs/decisions.md (or of the field's own
 * domain page): given pydantic's answer, the answer we give instead, or undefined where none applies.
 * Applied in this order to each case; each one must still be needed by some case (the last test).
 */
const EXCEPTIONS: {
  name: string;
  apply: (cfg: FieldConfig, input: string | null, want: Expected) => Expected | undefined;
}[] = [
  {
    // decisions.md, Wire format, "NaN and Infinity": a number field refuses them with finite_number
    // (pydantic accepts NaN/inf, or refuses them only by a bound, and FastAPI then fails to echo
    // them: a 500). A JSON literal (NaN, 1e309) echoes as null, text as sent.
    name: 'non-finite numbers are refused',
    apply: (cfg, input, want) => {
      if (!('nonfinite' in want)) return undefined;
      const echo = input!.startsWith('"') ? JSON.stringify(JSON.parse(input!)) : 'null';
      return { err: item(loc(cfg), FINITE_NUMBER, echo) };
    },
  },
  {
    // decisions.md, Wire format, "What a 422 echoes": a lone surrogate in any string field is refused
    // with string_unicode (pydantic refuses it only in a field with a length bound; an unbounded str
    // passes it on, to be stored and break every later response that carries it).
    name: 'lone surrogates are refused in every string field',
    apply: (cfg, input, want) => {
      if (cfg.kind !== 'string' || !('ok' in want) || (JSON.parse(want.ok) as string).isWellFormed())
        return undefined;
      return {
        err: item(
          loc(cfg),
          {
            type: 'string_unicode',
            msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
          },
          JSON.stringify((JSON.parse(input!) as string).toWellFormed()),
        ),
      };
    },
  },
  {
    // decisions.md, Wire format, "What a 422 echoes": an echoed lone surrogate is U+FFFD (FastAPI: 500).
    name: 'an echoed lone surrogate is U+FFFD',
    apply: (_cfg, _input, want) =>
      'err' in want && want.unsendable === 'surrogate'
        ? { err: want.err.replace(LONE_SURROGATE, '\uFFFD') }
        : undefined,
  },
  {
    // decisions.md, Wire format, "What a 422 echoes": an echoed NaN or infinity is null (FastAPI: 500).
    name: 'an echoed NaN or infinity is null',
    apply: (_cfg, _input, want) =>
      'err' in want && want.unsendable === 'nan' ? { err: want.err.replace(NON_FINITE, 'null') } : undefined,
  },
  {
    // decisions.md, Wire format, "Integers stop at 2^53 − 1": an integer literal outside i64 (JSON.parse
    // rounds those from 2^63 − 512 up to 2^63) is int_parsing_size, where pydantic reads any size and
    // answers the bound.
    name: 'integer literals outside i64 are int_parsing_size',
    apply: (cfg, input) => {
      if (cfg.kind !== 'integer' || input === null || !/^-?\d+$/.test(input)) return undefined;
      const n = Number(input);
      return n >= 2 ** 63 || n < -(2 ** 63) ? { err: item(loc(cfg), INT_TOO_BIG, input) } : undefined;
    },
  },
  {
    // decisions.md, Limits, "a free-form object": an empty key at any depth is refused with value_error
    // (DynamoDB cannot store one; pydantic's dict takes it).
    name: 'an empty key in a free-form object is refused',
    apply: (cfg, input, want) => {
      const emptyKey = (value: unknown): boolean =>
        typeof value === 'object' &&
        value !== null &&
        ((!Array.isArray(value) && Object.hasOwn(value, '')) || Object.values(value).some(emptyKey));
      if (cfg.kind !== 'dict' || !('ok' in want) || !emptyKey(JSON.parse(want.ok))) return undefined;
      return {
        err: `[{"type":"value_error","loc":${JSON.stringify(loc(cfg))},"msg":"Value error, keys must not be empty","input":${input},"ctx":{"error":{}}}]`,
      };
    },
  },
  {
    // docs/teams.md, `start`: Unix timestamps as text, which pydantic reads (a value, or
    // date_from_datetime_inexact), are refused as dates are, with speedate's text for the date they are not.
    name: 'a calendar date sent as a Unix timestamp is refused',
    apply: (cfg, input, want) => {
      if (cfg.kind !== 'date' || !/^"-?\d+(?:\.\d+)?"$/.test(input ?? '')) return undefined;
      if ('err' in want && !want.err.includes('date_from_datetime_inexact')) return undefined;
      return { anyErrorOf: 'date_from_datetime_parsing' };
    },
  },
  {
    // docs/teams.md, `start`: years CALENDAR_YEARS only, else value_error (echoing the text as sent).
    name: 'a calendar date outside the calendar years is refused',
    apply: (cfg, input, want) => {
      const date = cfg.kind === 'date' && 'ok' in want ? (JSON.parse(want.ok) as string | null) : null;
      const year = Number(date?.slice(0, 4));
      if (date === null || (year >= CALENDAR_YEARS.min && year <= CALENDAR_YEARS.max)) return undefined;
      const msg = `Value error, start must be a date in the years ${CALENDAR_YEARS.min} to ${CALENDAR_YEARS.max}`;
      return {
        err: `[{"type":"value_error","loc":${JSON.stringify(loc(cfg))},"msg":"${msg}","input":${input},"ctx":{"error":{}}}]`,
      };
    },
  },
];

/** pydantic's answer with `"input":@` written out (the case's input text, as the generator wrote it). */
const spelledOut = (answer: Answer, input: string | null): Answer =>
  'err' in answer && input !== null
    ? { ...answer, err: answer.err.replaceAll('"input":@', `"input":${input}`) }
    : answer;

/** Whether our answer is the one expected. A value is compared as a JSON value: pydantic's 5.0 is our 5,
 * and zero's sign is not compared (JSON.parse makes -0 of the integer literal -0, which Python reads as 0,
 * and our responses write -0 as 0). */
function matches(want: Expected, got: Ours): boolean {
  if ('anyErrorOf' in want) return 'err' in got && got.err.startsWith(`[{"type":"${want.anyErrorOf}"`);
  if ('ok' in want && 'ok' in got) {
    const value = JSON.parse(want.ok) as unknown;
    if (typeof value === 'number') return got.ok === value;
    try {
      assert.deepStrictEqual(got.ok, value);
      return true;
    } catch {
      return false;
    }
  }
  return 'err' in want && 'err' in got && want.err === got.err;
}

describe(`field validators against pydantic ${golden.pydantic} (test/fixtures/pydantic-golden.json)`, () => {
  const schemas = new Map<string, RequestSchemas>();
  for (const [name, cfg] of Object.entries(golden.fields))
    schemas.set(name, cfg.source === 'query' ? { query: CalendarQuery } : { body: model({ f: build(cfg) }) });
  const used = new Map<string, number>();

  it('answer every generated input as pydantic does, save the documented exceptions', () => {
    const differences: string[] = [];
    // GOLDEN_REPORT=1: per field kind, the cases, how many answers differ from pydantic's, and how many
    // of those no documented exception explains.
    const tally = new Map<string, { cases: number; differ: number; unexplained: number }>();
    for (const [field, input, answer] of golden.cases) {
      const cfg = golden.fields[field]!;
      const kind = tally.get(cfg.kind) ?? { cases: 0, differ: 0, unexplained: 0 };
      tally.set(cfg.kind, kind);
      kind.cases++;
      if (
        process.env.GOLDEN_REPORT &&
        !matches(spelledOut(answer, input), ours(cfg, schemas.get(field)!, input))
      )
        kind.differ++;
      let want: Expected = spelledOut(answer, input);
      for (const exception of EXCEPTIONS) {
        const instead = exception.apply(cfg, input, want);
        if (instead === undefined) continue;
        used.set(exception.name, (used.get(exception.name) ?? 0) + 1);
        want = instead;
      }
      const got = ours(cfg, schemas.get(field)!, input);
      if (matches(want, got)) continue;
      kind.unexplained++;
      differences.push(
        `${field} ${input}\n  expected: ${JSON.stringify(want)}\n  ours:     ${JSON.stringify(got)}`,
      );
    }
    if (process.env.GOLDEN_REPORT) {
      console.log(differences.join('\n'));
      console.table(Object.fromEntries(tally));
      console.table(Object.fromEntries(used));
    }
    assert.equal(
      differences.length,
      0,
      `${differences.length} differences:\n${differences.slice(0, 20).join('\n')}`,
    );
  });

  it('meets every documented exception somewhere (none is dead)', () => {
    for (const { name } of EXCEPTIONS) assert.ok(used.get(name), `no case needs "${name}"`);
  });
});
