// An item's size as DynamoDB counts it against its 400 KB (AWS's "Item sizes and formats"): names and
// strings in UTF-8 bytes, where dynalite counts UTF-16 units, so locally a Thai or emoji item passes
// that AWS refuses. Written here, not taken from a library: no maintained package counts the
// document client's plain values, and the rule is a dozen lines (checked against dynalite's own count
// in test/foundation/item-size.test.ts).

/** DynamoDB's largest item. */
export const ITEM_MAX_BYTES = 400 * 1024;

/** A number: 1 byte per two significant digits and 1 more; 1 more for an even count at an even
 * power of ten, and for the sign (dynalite's rule). */
export function numberBytes(text: string): number {
  const [, sign = '', whole = '', fraction = '', power = '0'] =
    /^([-+]?)(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?$/i.exec(text) ?? [];
  const digits = `${whole}${fraction}`;
  const first = digits.search(/[1-9]/);
  if (first < 0) return 1;
  // `(?<!0)`: trailing zeros tried from the start of each run of zeros only, not from every zero.
  const significant = digits.slice(first).replace(/(?<!0)0+$/, '').length;
  const exponent = whole.length - 1 - first + Number(power); // of the first significant digit
  return 1 + Math.ceil(significant / 2) + (significant % 2 || exponent % 2 ? 0 : 1) + (sign === '-' ? 1 : 0);
}

/** A value as the document client stores it (undefined left out, as `removeUndefinedValues` does). */
function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberBytes(String(value));
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, member) => sum + valueBytes(member), 0);
  // A list or map: 3 bytes, and 1 an entry.
  if (Array.isArray(value))
    return value.reduce((sum: number, entry) => (entry === undefined ? sum : sum + 1 + valueBytes(entry)), 3);
  if (value !== null && typeof value === 'object') return 3 + attributesBytes(value as object, 1);
  return 1; // a boolean or null
}

const attributesBytes = (item: object, perEntry: number): number =>
  Object.entries(item).reduce(
    (sum: number, [name, value]) =>
      value === undefined ? sum : sum + perEntry + Buffer.byteLength(name) + valueBytes(value),
    0,
  );

/** An item's size: each attribute's name and value. */
export const itemBytes = (item: object): number => attributesBytes(item, 0);

/** Refuses (an `Error` naming the size, thrown before anything is written) a record, or the part of
 * one, that would take more than `maxBytes` of its item as stored (`bytes`, its itemBytes). */
export function refuseStoredPast(what: string, bytes: number, maxBytes: number): void {
  if (bytes > maxBytes)
    throw new Error(
      `Invalid ${what}: ${bytes} bytes as stored, more than the ${maxBytes} its DynamoDB item leaves it`,
    );
}
