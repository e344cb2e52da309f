// Decodes a JSON request body the way FastAPI does (CPython 3.11 `json.loads`), so that a bad body
// yields the same `json_invalid` message and code-point position. See fastapi-errors.md §1.2 and §3.2.
//
// Valid standard JSON goes through `JSON.parse` (same grammar as Python's; it creates `__proto__` as an
// own data property). Only when it throws (a syntax error, or Python's extra NaN/Infinity literals) does
// the scanner below run: a transcription of CPython's C scanner (`Modules/_json.c`) that locates the
// error exactly like CPython, or builds the value.
//
// The way back is here too: `encodePythonJson` renders error bodies as Starlette does (float literals in
// Python's repr and big integers exact, which JSON.parse forgets, so a 422 re-reads its body with
// `decodePythonNumbers`).

export type DecodeResult = { ok: true; value: unknown } | { ok: false; pos: number; msg: string };

/**
 * CPython fails with something other than `JSONDecodeError`, which FastAPI answers with
 * 400 "There was an error parsing the body": RecursionError (nesting deeper than ~1000) and, reusing
 * this class, ValueError for an integer literal of more than 4300 digits (`sys.int_max_str_digits`).
 */
export class BodyTooDeepError extends Error {
  constructor(message = 'JSON body nested too deeply') {
    super(message);
    this.name = 'BodyTooDeepError';
  }
}

const MAX_DEPTH = 1000;
const MAX_INT_DIGITS = 4300;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** A number as Python prints it where JSON.parse forgets how it was written: a float literal (`1.0`,
 * `1e2` → `100.0`) or an integer past 2^53 (Python's ints are exact at any size). */
export class PythonNumber {
  constructor(
    readonly value: number,
    readonly repr: string,
  ) {}
  static float(value: number): PythonNumber {
    return new PythonNumber(value, pythonFloatRepr(value));
  }
  /** Outside error bodies it is just the number. */
  toJSON() {
    return this.value;
  }
}

const withoutBom = (input: string) => (input.charCodeAt(0) === 0xfeff ? input.slice(1) : input);

export function decodePythonJson(input: string): DecodeResult {
  const text = withoutBom(input);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return new Scanner(text).decode();
  }
  if (text.length <= 2 * MAX_DEPTH + 1) return { ok: true, value }; // too short to hold anything refused
  if (mayBeTooDeep(text) && deeperThan(value, MAX_DEPTH)) throw new BodyTooDeepError();
  if (hasLongDigitRun(text)) return new Scanner(text).decode(); // throws if it really is a huge int
  return { ok: true, value };
}

/** An accepted body read again with its float literals and big integers as PythonNumber (only to echo
 * a 422's inputs: the scanner is far slower than JSON.parse). */
export const decodePythonNumbers = (input: string): DecodeResult =>
  new Scanner(withoutBom(input), true).decode();

/** How much larger a JSON text can be than what it says: `\u0001` is 6 bytes for 1. */
export const MAX_JSON_ESCAPE_GROWTH = 6;

/**
 * The UTF-8 size of what a JSON text says: its bytes, less what each escape adds (`\n` is 2 bytes for
 * 1, `\u00e9` 6 for 2, a surrogate pair 12 for 4). A body limit then means the same for a client that
 * escapes every non-ASCII character (Python's `json.dumps` and `requests` by default) as for one that
 * sends UTF-8. A malformed escape counts as 2 bytes for 1; parsing refuses it afterwards.
 */
export function unescapedJsonBytes(bytes: Buffer): number {
  let size = bytes.length;
  let i = bytes.indexOf(BACKSLASH);
  while (i !== -1) {
    const unit = bytes[i + 1] === LOWER_U ? hex4(bytes, i + 2) : undefined;
    if (unit === undefined) {
      size -= 1;
      i = bytes.indexOf(BACKSLASH, i + 2);
      continue;
    }
    const low =
      unit >= 0xd800 && unit < 0xdc00 && bytes[i + 6] === BACKSLASH && bytes[i + 7] === LOWER_U
        ? hex4(bytes, i + 8)
        : undefined;
    if (low !== undefined && low >= 0xdc00 && low < 0xe000) {
      size -= 12 - 4;
      i = bytes.indexOf(BACKSLASH, i + 12);
    } else {
      size -= 6 - (unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3); // a lone surrogate: 3, as U+FFFD
      i = bytes.indexOf(BACKSLASH, i + 6);
    }
  }
  return size;
}

const BACKSLASH = 0x5c;
const LOWER_U = 0x75;

const hex4 = (bytes: Buffer, at: number): number | undefined => {
  const digits = bytes.toString('latin1', at, at + 4);
  return HEX4.test(digits) ? Number.parseInt(digits, 16) : undefined;
};

/** Cheap bound: a nesting depth over MAX_DEPTH needs more than MAX_DEPTH '[' / '{' characters. */
function mayBeTooDeep(text: string): boolean {
  let count = 0;
  for (const ch of ['[', '{']) {
    for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1))
      if (++count > MAX_DEPTH) return true;
  }
  return false;
}

function deeperThan(value: unknown, budget: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (budget === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (deeperThan(item, budget - 1)) return true;
  } else {
    for (const key in value) if (deeperThan((value as Record<string, unknown>)[key], budget - 1)) return true;
  }
  return false;
}

const isDigit = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
};

/** Any run of more than MAX_INT_DIGITS digits covers a multiple of MAX_INT_DIGITS: probe only those. */
function hasLongDigitRun(text: string): boolean {
  for (let i = MAX_INT_DIGITS; i < text.length; i += MAX_INT_DIGITS) {
    if (!isDigit(text, i)) continue;
    let start = i;
    let end = i + 1;
    while (start > 0 && isDigit(text, start - 1)) start--;
    while (end < text.length && isDigit(text, end)) end++;
    if (end - start > MAX_INT_DIGITS) return true;
  }
  return false;
}

/** A CPython JSONDecodeError: `pos` is a UTF-16 index until converted at the top. */
class Fail {
  constructor(
    readonly pos: number,
    readonly msg: string,
  ) {}
}

const isWhitespace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

class Scanner {
  private end = 0; // index just after the last value scanned
  private depth = 0;

  constructor(
    private readonly s: string,
    private readonly markNumbers = false,
  ) {}

  decode(): DecodeResult {
    const { s } = this;
    try {
      const value = this.value(this.ws(0));
      const end = this.ws(this.end);
      if (end !== s.length) throw new Fail(end, 'Extra data');
      return { ok: true, value };
    } catch (error) {
      if (!(error instanceof Fail)) throw error;
      return { ok: false, pos: codePointIndex(s, error.pos), msg: error.msg };
    }
  }

  private ws(i: number): number {
    while (i < this.s.length && isWhitespace(this.s.charCodeAt(i))) i++;
    return i;
  }

  private literal(i: number, word: string, value: unknown): unknown {
    if (!this.s.startsWith(word, i)) return this.number(i);
    this.end = i + word.length;
    return value;
  }

  private value(i: number): unknown {
    // CPython raises StopIteration(idx) here; every caller turns it into "Expecting value" at idx.
    if (i >= this.s.length) throw new Fail(i, 'Expecting value');
    switch (this.s[i]) {
      case '"':
        return this.string(i + 1);
      case '{':
        return this.object(i + 1);
      case '[':
        return this.array(i + 1);
      case 'n':
        return this.literal(i, 'null', null);
      case 't':
        return this.literal(i, 'true', true);
      case 'f':
        return this.literal(i, 'false', false);
      case 'N':
        return this.literal(i, 'NaN', Number.NaN);
      case 'I':
        return this.literal(i, 'Infinity', Number.POSITIVE_INFINITY);
      case '-':
        return this.literal(i, '-Infinity', Number.NEGATIVE_INFINITY);
      default:
        return this.number(i);
    }
  }

  private number(i: number): number | PythonNumber {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(this.s);
    if (!m) throw new Fail(i, 'Expecting value');
    const literal = m[0];
    const isInt = m[1] === undefined && m[2] === undefined;
    if (isInt && literal.length - (literal[0] === '-' ? 1 : 0) > MAX_INT_DIGITS)
      throw new BodyTooDeepError(
        `Exceeds the limit (${MAX_INT_DIGITS} digits) for integer string conversion`,
      );
    this.end = i + literal.length;
    const value = Number(literal);
    if (!this.markNumbers) return value;
    if (isInt) return Number.isSafeInteger(value) ? value : new PythonNumber(value, literal);
    // 1e400 stays the number Infinity: a field refuses it, and JSON has no way to echo it.
    return Number.isFinite(value) ? PythonNumber.float(value) : value;
  }

  /** `start` is just after the opening quote. */
  private string(start: number): string {
    const { s } = this;
    const n = s.length;
    let out = '';
    let end = start;
    for (;;) {
      let j = end;
      let c = 0;
      for (; j < n; j++) {
        c = s.charCodeAt(j);
        if (c === 34 || c === 92) break;
        if (c <= 0x1f) throw new Fail(j, 'Invalid control character at');
      }
      if (j >= n) throw new Fail(start - 1, 'Unterminated string starting at');
      out += s.slice(end, j);
      if (c === 34) {
        this.end = j + 1;
        return out;
      }
      j++; // the escaped character
      if (j >= n) throw new Fail(start - 1, 'Unterminated string starting at');
      const e = s[j] as string;
      if (e !== 'u') {
        const decoded = ESCAPES[e];
        if (decoded === undefined) throw new Fail(j - 1, 'Invalid \\escape');
        out += decoded;
        end = j + 1;
      } else {
        // CPython demands a character after the 4 hex digits (`end >= len` fails). Surrogate pairs
        // need no special case: JS strings are UTF-16, and CPython's pair logic never changes an error.
        end = j + 5;
        const hex = s.slice(j + 1, end);
        if (end >= n || !HEX4.test(hex)) throw new Fail(j, 'Invalid \\uXXXX escape');
        out += String.fromCharCode(Number.parseInt(hex, 16));
      }
    }
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw new BodyTooDeepError();
  }

  private object(start: number): Record<string, unknown> {
    const { s } = this;
    this.enter();
    const obj: Record<string, unknown> = {};
    let i = this.ws(start);
    if (s[i] !== '}') {
      for (;;) {
        if (s[i] !== '"') throw new Fail(i, 'Expecting property name enclosed in double quotes');
        const key = this.string(i + 1);
        i = this.ws(this.end);
        if (s[i] !== ':') throw new Fail(i, "Expecting ':' delimiter");
        const value = this.value(this.ws(i + 1));
        if (key === '__proto__')
          Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
        else obj[key] = value;
        i = this.ws(this.end);
        if (s[i] === '}') break;
        if (s[i] !== ',') throw new Fail(i, "Expecting ',' delimiter");
        i = this.ws(i + 1);
      }
    }
    this.depth--;
    this.end = i + 1;
    return obj;
  }

  private array(start: number): unknown[] {
    const { s } = this;
    this.enter();
    const arr: unknown[] = [];
    let i = this.ws(start);
    if (s[i] !== ']') {
      for (;;) {
        arr.push(this.value(i));
        i = this.ws(this.end);
        if (s[i] === ']') break;
        if (s[i] !== ',') throw new Fail(i, "Expecting ',' delimiter");
        i = this.ws(i + 1);
      }
    }
    this.depth--;
    this.end = i + 1;
    return arr;
  }
}

/** Python indexes strings by code point: a surrogate pair before `pos` counts once. */
function codePointIndex(s: string, pos: number): number {
  let cp = pos;
  for (let i = 1; i < pos; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) {
      const prev = s.charCodeAt(i - 1);
      if (prev >= 0xd800 && prev <= 0xdbff) cp--;
    }
  }
  return cp;
}

/** Python's `repr(float)`: shortest round-trip digits, positional when -4 < decpt <= 16. */
export function pythonFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  const [mantissa = '0', exp = '0'] = Math.abs(n).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const decpt = Number(exp) + 1;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const e = decpt - 1;
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

/**
 * An error body as Starlette renders it (compact `json.dumps`): a PythonNumber as Python prints it, and
 * a lone surrogate, in a key or a value, as U+FFFD. Python cannot encode one as UTF-8 (FastAPI answers
 * 500) and strict readers (jq, Python) refuse JSON.stringify's `\ud800`. Otherwise as JSON.stringify,
 * which renders a body holding neither (most of them) about eight times faster.
 */
export const encodePythonJson = (value: unknown): string =>
  needsPython(value) ? encode(value) : (JSON.stringify(value) ?? 'null');

/** Whether a value holds a PythonNumber or a lone surrogate: a walk that builds nothing. */
function needsPython(value: unknown): boolean {
  if (typeof value === 'string') return !value.isWellFormed();
  if (typeof value !== 'object' || value === null) return false;
  if (value instanceof PythonNumber) return true;
  if (Array.isArray(value)) return value.some(needsPython);
  for (const key in value)
    if (!key.isWellFormed() || needsPython((value as Record<string, unknown>)[key])) return true;
  return false;
}

function encode(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.toWellFormed());
  if (value instanceof PythonNumber) return value.repr;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if ('toJSON' in value && typeof value.toJSON === 'function') return encode(value.toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => encode(item ?? null)).join(',')}]`;
  const members = Object.entries(value).filter(([, entry]) => entry !== undefined);
  return `{${members.map(([key, entry]) => `${encode(key)}:${encode(entry)}`).join(',')}}`;
}
