/** JSON as Python's `json.dumps` writes it by default (`ensure_ascii=True`, as `requests` sends it):
 * every character past ASCII as `\uXXXX`, a surrogate pair for one past the BMP. */
export const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
