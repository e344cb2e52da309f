// UUID parsing with the error texts pydantic 2.13 prints (the Rust `uuid` crate 1.23), so a bad
// path id answers exactly as the FastAPI original did. See fastapi-errors.md §2.3.
const HEX = /^[0-9a-fA-F]$/;
const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');

export type UuidParse = { uuid: string } | { error: string };

/**
 * The crate works on UTF-8 bytes: a `{…}` of exactly 38 bytes or a `urn:uuid:…` of 45 is read as
 * the 36 bytes inside, and when that fails the error describes that part alone, as if it had been
 * sent by itself. Any other `{…}` or `urn:uuid:…` is described whole: positions count the prefix,
 * and a last group's length is the whole input's bytes less 24 (`{…-1234567890a}` "found 13").
 */
export function uuidParseError(input: string): UuidParse {
  const bytes = utf8Length(input);
  const braced = input.startsWith('{') && input.endsWith('}') && input.length >= 2;
  const urn = input.startsWith('urn:uuid:');
  if (braced && bytes === 38) return describe(input.slice(1, -1), 0, true);
  if (urn && bytes === 45) return describe(input.slice(9), 0, true);
  if (braced) return describe(input, 1, false);
  if (urn) return describe(input, 9, false);
  return describe(input, 0, true);
}

/** `whole` is what the crate describes; its first `prefix` characters are the `{` or `urn:uuid:`. */
function describe(whole: string, prefix: number, simple: boolean): UuidParse {
  const body = simple ? whole : whole.slice(prefix, prefix === 1 ? -1 : undefined);
  let offset = 0;
  let hyphens = 0;
  for (const ch of body) {
    if (ch === '-') hyphens++;
    else if (!HEX.test(ch)) return { error: `invalid character: found \`${ch}\` at ${offset + prefix + 1}` };
    offset += utf8Length(ch);
  }
  if (hyphens === 0) {
    if (simple && body.length === 32) return { uuid: hyphenate(body) };
    if (simple)
      return { error: `invalid length: expected length 32 for simple format, found ${utf8Length(whole)}` };
  }
  if (hyphens !== 4) return { error: `invalid group count: expected 5, found ${hyphens + 1}` };
  const groups = body.split('-');
  const expected = [8, 4, 4, 4, 12];
  for (let g = 0; g < 4; g++) {
    const length = groups[g]?.length ?? 0;
    if (length !== expected[g])
      return { error: `invalid group length in group ${g}: expected ${expected[g]}, found ${length}` };
  }
  // With a prefix the crate has already refused the input (only 38- and 45-byte ones are read).
  if (!simple || whole.length !== 36)
    return { error: `invalid group length in group 4: expected 12, found ${whole.length - 24}` };
  return { uuid: body.toLowerCase() };
}

const hyphenate = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`.toLowerCase();
