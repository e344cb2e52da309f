import type { TextLine } from './types.ts';

const MAX_HEADING_WORDS = 12;

/** The size most text is set in. */
export function bodySize(lines: TextLine[]): number {
  const chars = new Map<number, number>();
  for (const line of lines) chars.set(line.size, (chars.get(line.size) ?? 0) + line.text.length);
  let best = 0;
  let bestChars = -1;
  for (const [size, count] of chars) {
    if (count > bestChars) {
      best = size;
      bestChars = count;
    }
  }
  return best;
}

function headingLike(text: string): boolean {
  const words = text.split(/\s+/).length;
  // Quotations and numbers-only lines are content, not headings.
  return words <= MAX_HEADING_WORDS && !/^["“”'‘«]/.test(text) && /\p{L}/u.test(text);
}

/**
 * Marks lines set larger than body text as headings (level 1 = largest size). Bold short lines at body
 * size become the minor level, which is how many documents label sub-sections.
 */
export function assignHeadingLevels(lines: TextLine[]): void {
  const body = bodySize(lines);
  const paragraph = paragraphLines(lines);
  const sizes = [
    ...new Set(lines.filter((l) => l.size >= body * 1.08 && headingLike(l.text)).map((l) => l.size)),
  ].sort((a, b) => b - a);
  // Each size's level looked up, not searched for: a search per line took the lines times the sizes
  // (a DOCX of 128,000 short lines each set in a size of its own: 5.9 s).
  const levelOf = new Map(sizes.map((size, i) => [size, i + 1]));
  for (const line of lines) {
    const level = levelOf.get(line.size);
    if (paragraph.has(line)) continue;
    if (level !== undefined && headingLike(line.text)) line.level = level;
    else if (
      line.bold &&
      line.size >= body * 0.95 &&
      headingLike(line.text) &&
      line.text.split(/\s+/).length <= 8
    )
      line.level = sizes.length + 1;
  }
}

/**
 * Lines that belong to running text set large (an intro paragraph): three or more lines of one size
 * stacked closely, or a line that visibly continues into the next one.
 */
function paragraphLines(lines: TextLine[]): Set<TextLine> {
  const out = new Set<TextLine>();
  let block: TextLine[] = [];
  const close = () => {
    const continues = block.some(
      (l, i) => i + 1 < block.length && /[,;\p{Ll}-]$/u.test(l.text) && /^\p{Ll}/u.test(block[i + 1]!.text),
    );
    if (block.length >= 3 || continues) for (const l of block) out.add(l);
    block = [];
  };
  for (const line of lines) {
    const prev = block.at(-1);
    const stacked =
      prev &&
      prev.page === line.page &&
      prev.size === line.size &&
      prev.bold === line.bold &&
      Math.abs(prev.x - line.x) < line.size &&
      prev.y > line.y &&
      prev.y - line.y < 2 * line.size;
    if (!stacked) close();
    block.push(line);
  }
  close();
  return out;
}

export interface Section {
  heading: TextLine;
  body: TextLine[];
}

/**
 * Each heading with the lines up to the next heading of the same or higher importance. Where each body
 * ends is found in one pass, and a body is cut from the lines only when it is read (a few are): copying
 * every body took the square of the headings where they nest, as N sizes set in falling order do (each
 * body runs to the end: a 90 KB DOCX took 4 s and 1.4 GB, one of 178 KB ran out of memory).
 */
export function sections(lines: TextLine[]): Section[] {
  const ends = new Map<number, number>();
  // Headings whose body is still open, from the most important up: each heading closes those of its
  // level and below, which are on top.
  const open: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const { level } = lines[i]!;
    if (level === 0) continue;
    while (open.length > 0 && lines[open.at(-1)!]!.level >= level) ends.set(open.pop()!, i);
    open.push(i);
  }
  const out: Section[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.level === 0) continue;
    const [start, end] = [i + 1, ends.get(i) ?? lines.length];
    let body: TextLine[] | undefined;
    out.push({
      heading: lines[i]!,
      get body() {
        body ??= lines.slice(start, end);
        return body;
      },
    });
  }
  return out;
}

/** Drops running headers/footers and page numbers: lines repeated on many pages are not content. */
export function withoutRunningLines(lines: TextLine[], pages: number): TextLine[] {
  if (pages < 3) return lines.filter((l) => !/^\d{1,3}$/.test(l.text));
  const key = (l: TextLine) => l.text.toLowerCase().replace(/\d+/g, '#');
  const seenOn = new Map<string, Set<number>>();
  for (const line of lines) seenOn.set(key(line), (seenOn.get(key(line)) ?? new Set()).add(line.page));
  const minPages = Math.max(3, Math.ceil(pages * 0.3));
  return lines.filter((l) => !/^\d{1,3}$/.test(l.text) && (seenOn.get(key(l))?.size ?? 0) < minPages);
}
