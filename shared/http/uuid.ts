// UUID parsing with the error texts pydantic 2.13 prints (the Rust `uuid` crate 1.23), so a bad
// path id answers exactly as the FastAPI original did. See fastapi-errors.md §2.3.
const HEX = /^[0-9a-fA-F]$/;
const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');

export type UuidParse = { uuid: string } | { error: string };

export function uuidParseError(input: string): UuidParse {
  let body = input;
  let prefix = 0;
  let simple = true;
  if (input.startsWith('{') && input.endsWith('}') && input.length >= 2) {
    [body, prefix, simple] = [input.slice(1, -1), 1, false];
    if (input.length === 38) [prefix, simple] = [0, true];
  } else if (input.startsWith('urn:uuid:')) {
    [body, prefix, simple] = [input.slice(9), 9, false];
    if (input.length === 45) [prefix, simple] = [0, true];
  }
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
      return { error: `invalid length: expected length 32 for simple format, found ${utf8Length(input)}` };
  }
  if (hyphens !== 4) return { error: `invalid group count: expected 5, found ${hyphens + 1}` };
  const groups = body.split('-');
  const expected = [8, 4, 4, 4, 12];
  for (let g = 0; g < 4; g++) {
    const length = groups[g]?.length ?? 0;
    if (length !== expected[g])
      return { error: `invalid group length in group ${g}: expected ${expected[g]}, found ${length}` };
  }
  if (body.length !== 36)
    return { error: `invalid group length in group 4: expected 12, found ${body.length - 24}` };
  return { uuid: body.toLowerCase() };
}

const hyphenate = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`.toLowerCase();
