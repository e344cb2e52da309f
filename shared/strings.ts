// Plain string helpers shared by domains that keep no other dependency in common (no valibot here, so
// the catalogue importer's bundle does not carry the validation layer).

const SURROGATE = /[\uD800-\uDFFF]/;
/** Length in code points, as Python's len(): an astral character counts once. */
export const codePointLength = (s: string): number => (SURROGATE.test(s) ? [...s].length : s.length);

/** At most `max` code points, '…' included; cut at the last space when one is in the second half. */
export const cutAtWord = (text: string, max: number): string => {
  const head = [...text].slice(0, max - 1).join('');
  const space = head.search(/\s\S*$/);
  return `${(space > head.length / 2 ? head.slice(0, space) : head).trimEnd()}…`;
};

/**
 * `text` without the characters `edge` holds for at its start and end (with `'end'`, at its end only).
 * A loop, not a pattern such as /[…]+$/: that is tried from every character of a run inside the text
 * and reads to the run's end each time, the square of the run (seconds for a field of blanks, a line
 * of quotes, an address ending in dots).
 */
export function trimEdges(text: string, edge: (char: string) => boolean, sides: 'both' | 'end' = 'both') {
  let [start, end] = [0, text.length];
  if (sides === 'both') while (start < end && edge(text[start]!)) start++;
  while (end > start && edge(text[end - 1]!)) end--;
  return text.slice(start, end);
}
