import type { DocumentModel, PaintedShape, TextLine } from './types.ts';

export type ColorRole = 'primary' | 'secondary' | 'accent' | 'neutral';

const hex2 = (n: number) =>
  Math.max(0, Math.min(255, Math.round(n)))
    .toString(16)
    .padStart(2, '0');
export const rgbHex = (r: number, g: number, b: number) => `#${hex2(r)}${hex2(g)}${hex2(b)}`.toUpperCase();

export function normalizeHex(value: string): string | null {
  const digits = value.replace(/^#/, '');
  if (/^[0-9a-f]{6}$/i.test(digits)) return `#${digits.toUpperCase()}`;
  if (/^[0-9a-f]{3}$/i.test(digits)) return `#${[...digits].map((d) => d + d).join('')}`.toUpperCase();
  return null;
}

function channels(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export function colorDistance(a: string, b: string): number {
  const [r1, g1, b1] = channels(a);
  const [r2, g2, b2] = channels(b);
  return Math.hypot(r1 - r2, g1 - g2, b1 - b2);
}

/** Greys, black and white carry no hue; they never make a palette on their own. */
export function isChromatic(hex: string): boolean {
  const c = channels(hex);
  return Math.max(...c) - Math.min(...c) >= 24;
}

const cmykHex = (c: number, m: number, y: number, k: number) =>
  rgbHex(
    255 * (1 - c / 100) * (1 - k / 100),
    255 * (1 - m / 100) * (1 - k / 100),
    255 * (1 - y / 100) * (1 - k / 100),
  );

const byte = (s: string | undefined) => {
  const n = Number(s);
  return Number.isInteger(n) && n >= 0 && n <= 255 ? n : null;
};
const percent = (s: string | undefined) => {
  const n = Number(s);
  return Number.isFinite(n) && n >= 0 && n <= 100 ? n : null;
};

/** Names of the neutrals a swatch may carry, beside the words of colour headings and roles. */
const NEUTRAL_NAMES =
  /\b(black|white|charcoal|ink|slate|graphite|carbon|onyx|jet|smoke|silver|foreground|text colou?r|shade|tint)\b/i;
/** A line about a colour: a colour heading's word, a role in a palette, or a neutral's name. */
const namesAColour = (text: string) =>
  COLOR_HEADING.test(text) || NEUTRAL_NAMES.test(text) || ROLE_WORDS.some(([, words]) => words.test(text));

/** A neutral's swatch: #000, #111 … #999 on a line of at most four words that names a colour, and no
 * Pantone number (`Primary Pantone #286 C`, `Grey #100` are no hex codes). */
const isNeutralSwatch = (digits: string, text: string) =>
  /^(\d)\1\1$/.test(digits) &&
  namesAColour(text) &&
  !/\b(pantone|pms)\b/i.test(text) &&
  text.trim().split(/\s+/).length <= 4;

// A leading "#" or a hex/web label makes a code; bare digit runs such as "123456" in type specimens do not.
const HEX_CODE =
  /(?:#|\b(?:hex|html|web|hexadecimal)\s*(?:code)?\s*[:=]?\s*#?)([0-9a-f]{6}|[0-9a-f]{3})(?![0-9a-z])/gi;
const RGB_LABELLED =
  /\brgb[a]?\s*(?:\(|:)?\s*(\d{1,3})\s*[,/;]?\s*(\d{1,3})\s*[,/;]?\s*(\d{1,3})(?!\s*[.,]?\d)/gi;
const RGB_LETTERS = /\bR\s*:?\s*(\d{1,3})\s*[,/]?\s*G\s*:?\s*(\d{1,3})\s*[,/]?\s*B\s*:?\s*(\d{1,3})\b/g;
const CMYK_LETTERS =
  /\bC\s*:?\s*(\d{1,3})\s*[,/]?\s*M\s*:?\s*(\d{1,3})\s*[,/]?\s*Y\s*:?\s*(\d{1,3})\s*[,/]?\s*K\s*:?\s*(\d{1,3})\b/g;
const CMYK_LABELLED =
  /\bcmyk\s*:?\s*\(?\s*(\d{1,3})\s*[,./ ]\s*(\d{1,3})\s*[,./ ]\s*(\d{1,3})\s*[,./ ]\s*(\d{1,3})\b/gi;
/** Three bare channel values after a label, valid only under an "RGB" column header. */
const BARE_TRIPLE = /(?:^|[:\s])(\d{1,3})[\s,/]+(\d{1,3})[\s,/]+(\d{1,3})\s*\.?$/;
const BARE_QUAD = /(?:^|[:\s])(\d{1,3})[\s,./]+(\d{1,3})[\s,./]+(\d{1,3})[\s,./]+(\d{1,3})\s*\.?$/;
const MISUSE = /\b(don['’]?t|do not|never|avoid|incorrect|misuse|wrong|not allowed|nicht|ne pas|no use)\b/i;
const MODEL_HEADER = /^\s*(rgb|r ?g ?b|cmyk|c ?m ?y ?k|hex|html|web|pantone|pms|ral)\s*:?\s*$/i;

/** Like text.matchAll(pattern), which copies the pattern on every call: a real cost when run on every line. */
function allMatches(pattern: RegExp, text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    found.push(m);
    if (!m[0]) pattern.lastIndex++;
  }
  return found;
}

/** A colour value the text prints, with the line it is on (`index` into the document's lines). */
export interface ColorMention {
  hex: string;
  kind: 'hex' | 'rgb' | 'cmyk';
  index: number;
  line: TextLine;
}

/** Colour values read from a document: a palette is a few dozen, and past these the rest are not
 * read (the checks below then stay bounded however many a document prints). */
export const MAX_COLOR_MENTIONS = 1_000;

/** Column headers a page's bare values are matched with by position; a page with more is read by
 * the last header read alone (a cut list would match values with the wrong ones). */
const MAX_HEADERS_PER_PAGE = 64;

/** A notation header ("RGB", "HEX", …) where it stands on its page. */
interface ModelHeader {
  model: string;
  x: number;
  y: number;
}

const modelOf = (header: RegExpExecArray) => header[1]!.toLowerCase().replace(/\s/g, '');

/** Every page's notation headers with their positions; null for a page with more than
 * MAX_HEADERS_PER_PAGE (a DOCX is one page: a long one's values go by the last header read). */
function modelHeaders(lines: TextLine[]): Map<number, ModelHeader[] | null> {
  const headers = new Map<number, ModelHeader[] | null>();
  for (const line of lines) {
    const header = MODEL_HEADER.exec(line.text);
    if (!header) continue;
    const page = headers.get(line.page);
    const entry = { model: modelOf(header), x: line.x, y: line.y };
    if (page === undefined) headers.set(line.page, [entry]);
    else if (page && page.length < MAX_HEADERS_PER_PAGE) page.push(entry);
    else headers.set(line.page, null);
  }
  return headers;
}

/**
 * The notation a line's bare values are read in, by position: a header on its own baseline to its
 * left (a row label, "HEX   FAB90F"), else the header above it nearest across plus down (the one over
 * its column in a "Name | HEX | RGB | CMYK" table; the lowest of labels stacked over their values).
 * Null when none lines up with it.
 */
function headerModelAt(headers: ModelHeader[] | null | undefined, line: TextLine): string | null {
  const size = Math.max(line.size, 1);
  let row: ModelHeader | null = null;
  let column: ModelHeader | null = null;
  let columnDistance = Number.POSITIVE_INFINITY;
  for (const h of headers ?? []) {
    const across = Math.abs(h.x - line.x);
    if (Math.abs(h.y - line.y) < 0.5 * size) {
      if (h.x < line.x && (!row || h.x > row.x)) row = h;
    } else if (h.y > line.y && across < 12 * size && h.y - line.y + across < columnDistance) {
      column = h;
      columnDistance = h.y - line.y + across;
    }
  }
  return (row ?? column)?.model ?? null;
}

export function printedColors(lines: TextLine[]): ColorMention[] {
  const found: ColorMention[] = [];
  // Bare values are read in the notation of their column's header. Read in order alone, every value
  // of a table row came after the row's last header ("Pantone"), so none was read under its own.
  // Where no header lines up, the last one read on the page still counts. (A DOCX's lines all stand
  // at x 0, one under the other: the nearest header above is the last one read, as before.)
  const headers = modelHeaders(lines);
  let lastModel: string | null = null;
  let lastModelPage = -1;
  for (const [index, line] of lines.entries()) {
    if (found.length >= MAX_COLOR_MENTIONS) break;
    const text = line.text;
    const header = MODEL_HEADER.exec(text);
    if (header) {
      lastModel = modelOf(header);
      lastModelPage = line.page;
      continue;
    }
    if (line.page !== lastModelPage) lastModel = null;
    const add = (hex: string | null, kind: ColorMention['kind']) => {
      if (hex) found.push({ hex, kind, index, line });
    };
    for (const m of allMatches(HEX_CODE, text)) {
      const digits = m[1]!;
      // "#123" is more often a number than a colour, unless it is a neutral's swatch ("Charcoal #333":
      // the neutrals #000, #111, #333 were dropped; "Black text is always #000 on white paper…" is a
      // usage note, not a palette entry).
      if (
        digits.length === 3 &&
        /^\d+$/.test(digits) &&
        m[0].startsWith('#') &&
        !isNeutralSwatch(digits, text)
      )
        continue;
      add(normalizeHex(digits), 'hex');
    }
    for (const pattern of [RGB_LABELLED, RGB_LETTERS]) {
      for (const m of allMatches(pattern, text)) {
        const [r, g, b] = [byte(m[1]), byte(m[2]), byte(m[3])];
        if (r !== null && g !== null && b !== null) add(rgbHex(r, g, b), 'rgb');
      }
    }
    for (const pattern of [CMYK_LETTERS, CMYK_LABELLED]) {
      for (const m of allMatches(pattern, text)) {
        const v = [percent(m[1]), percent(m[2]), percent(m[3]), percent(m[4])];
        if (v.every((x) => x !== null)) add(cmykHex(v[0]!, v[1]!, v[2]!, v[3]!), 'cmyk');
      }
    }
    const model = headerModelAt(headers.get(line.page), line) ?? lastModel;
    if (model === 'rgb') {
      const m = BARE_TRIPLE.exec(text);
      const [r, g, b] = [byte(m?.[1]), byte(m?.[2]), byte(m?.[3])];
      if (r !== null && g !== null && b !== null) add(rgbHex(r, g, b), 'rgb');
    } else if ((model === 'hex' || model === 'html' || model === 'web') && found.at(-1)?.index !== index) {
      const m = /(?:^|[:\s])(#?)([0-9a-f]{6})\s*$/i.exec(text);
      // Under a HEX column a bare code counts, but not a plain number.
      if (m && (m[1] || /[a-f]/i.test(m[2]!))) add(normalizeHex(m[2]!), 'hex');
    } else if (model === 'cmyk') {
      const m = BARE_QUAD.exec(text);
      const v = [percent(m?.[1]), percent(m?.[2]), percent(m?.[3]), percent(m?.[4])];
      if (m && v.every((x) => x !== null)) add(cmykHex(v[0]!, v[1]!, v[2]!, v[3]!), 'cmyk');
    }
  }
  found.length = Math.min(found.length, MAX_COLOR_MENTIONS);

  // Colours shown as misuse ("don't recolour the logo #FF0000") are not part of the palette. Each line
  // is read once: per value, a line holding thousands of them was read thousands of times.
  const misuseLines = new Map<number, boolean>();
  const misuseAt = (index: number) => {
    if (!misuseLines.has(index)) misuseLines.set(index, MISUSE.test(lines[index]!.text));
    return misuseLines.get(index)!;
  };
  const misuse = (m: ColorMention) =>
    [m.index - 1, m.index].some((i) => lines[i] && lines[i].page === m.line.page && misuseAt(i));
  const allowed = found.filter((m) => !misuse(m));
  found.length = 0;
  found.push(...allowed);
  // One swatch often prints the same colour as HEX, RGB and CMYK: keep the most exact notation. Only
  // the mentions of the four lines either side are compared (by line, not with every mention: a
  // document of thousands of values took seconds, quadratically).
  const exact = found.some((m) => m.kind !== 'cmyk');
  const byLine = new Map<number, ColorMention[]>();
  for (const m of found) {
    const line = byLine.get(m.index);
    if (line) line.push(m);
    else byLine.set(m.index, [m]);
  }
  const near = (m: ColorMention) =>
    Array.from({ length: 9 }, (_, i) => byLine.get(m.index - 4 + i) ?? []).flat();
  return found.filter((m) => {
    if (m.kind === 'hex') return true;
    if (m.kind === 'cmyk' && exact) return false;
    return !near(m).some(
      (o) =>
        o !== m &&
        (o.kind === 'hex' || (m.kind === 'cmyk' && o.kind === 'rgb')) &&
        o.line.page === m.line.page &&
        colorDistance(o.hex, m.hex) < 48,
    );
  });
}

const ROLE_WORDS: [ColorRole, RegExp][] = [
  ['accent', /\b(accents?|akzent\w*|acento|destaques?|highlight)\b/i],
  [
    'secondary',
    /\b(secondary|sekundär\w*|secondaire|secund[aá]ri[oa]s?|supporting|complementary|additional)(?![\p{L}\p{N}_])/iu,
  ],
  [
    'primary',
    /\b(primary|primär\w*|primaire|prim[aá]ri[oa]s?|principal|main|core|hauptfarben?|brand (palette|colou?rs?)|signature)(?![\p{L}\p{N}_])/iu,
  ],
  ['neutral', /\b(backgrounds?|neutrals?|dark|light|hintergrund|fond|fondo|greys?|grays?)\b/i],
];

function roleOf(text: string): ColorRole | null {
  for (const [role, pattern] of ROLE_WORDS) if (pattern.test(text)) return role;
  return null;
}

interface RoleLabel {
  index: number;
  y: number;
  role: ColorRole;
}

/** A page's short label lines that name a role: in reading order, and by height (ties in reading order). */
interface PageLabels {
  inOrder: RoleLabel[];
  byHeight: RoleLabel[];
  oneRole: boolean;
}

/** Every page's role labels, read once for the document (per mention, it read every line again: a
 * document of thousands of values took minutes). */
function roleLabels(lines: TextLine[]): Map<number, PageLabels> {
  const labels = new Map<number, RoleLabel[]>();
  lines.forEach((line, index) => {
    if (line.text.split(/\s+/).length > 6) return;
    const role = roleOf(line.text);
    if (role === null) return;
    const page = labels.get(line.page) ?? [];
    page.push({ index, y: line.y, role });
    labels.set(line.page, page);
  });
  return new Map(
    [...labels].map(([page, inOrder]) => [
      page,
      {
        inOrder,
        byHeight: [...inOrder].sort((a, b) => a.y - b.y),
        oneRole: inOrder.every((l) => l.role === inOrder[0]!.role),
      },
    ]),
  );
}

/** How many of `sorted` come before the first one `atOrPast` holds for (they hold from there on). */
function firstAtOrPast<T>(sorted: readonly T[], atOrPast: (item: T) => boolean): number {
  let [low, high] = [0, sorted.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (atOrPast(sorted[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The nearest short label line that names a role, preferring labels read before the value;
 * `own` is the role the value's line names itself (read once per line). */
function mentionRole(
  labels: Map<number, PageLabels>,
  mention: ColorMention,
  own: ColorRole | null,
): ColorRole | null {
  if (own && own !== 'neutral') return own;
  const page = labels.get(mention.line.page);
  if (!page) return own;
  if (page.oneRole) return page.inOrder[0]!.role;
  const before = firstAtOrPast(page.inOrder, (l) => l.index >= mention.index);
  if (before > 0) return page.inOrder[before - 1]!.role;
  const above = page.byHeight[firstAtOrPast(page.byHeight, (l) => l.y >= mention.line.y)];
  return above?.role ?? own;
}

const COLOR_HEADING =
  /\b(colou?rs?|palettes?|farben?|farbpalette|couleurs?|colores?|cores|kleuren?|swatch(es)?)\b/i;

/**
 * The colour pages: those that present colours (under a short colour heading), and every page of a
 * document without text. The one definition: swatches are read on these pages, and the PDF reader
 * draws them early and, while no values are printed, within the larger budget.
 */
export function swatchPages(lines: readonly TextLine[], pageCount: number): Set<number> {
  const pages = new Set(
    lines.filter((l) => COLOR_HEADING.test(l.text) && l.text.split(/\s+/).length <= 6).map((l) => l.page),
  );
  if (lines.length === 0) for (let p = 1; p <= pageCount; p++) pages.add(p);
  return pages;
}

/** Shapes read for swatches: a palette is a few dozen; past these, shapes are decoration or filler. */
export const MAX_SWATCH_SHAPES = 2_000;
/** Size buckets on a log scale, a little wider than the 6% that makes two shapes the same size, so
 * same-sized shapes are in the same or a neighbouring bucket. */
const SIZE_BUCKET = 0.07;

/** Shapes grouped by page and size bucket, then by colour. */
function sizeBuckets(shapes: PaintedShape[]): Map<string, Map<string, PaintedShape[]>> {
  const buckets = new Map<string, Map<string, PaintedShape[]>>();
  for (const s of shapes) {
    const key = bucketKey(s, 0, 0);
    const bucket = buckets.get(key) ?? new Map<string, PaintedShape[]>();
    buckets.set(key, bucket);
    const same = bucket.get(s.hex);
    if (same) same.push(s);
    else bucket.set(s.hex, [s]);
  }
  return buckets;
}

const bucketKey = (s: PaintedShape, dw: number, dh: number) =>
  `${s.page} ${Math.floor(Math.log(s.width) / SIZE_BUCKET) + dw} ${Math.floor(Math.log(s.height) / SIZE_BUCKET) + dh}`;

/** The shapes of the buckets around `s`'s, by colour. */
function* around(buckets: Map<string, Map<string, PaintedShape[]>>, s: PaintedShape) {
  for (const dw of [-1, 0, 1])
    for (const dh of [-1, 0, 1])
      yield* buckets.get(bucketKey(s, dw, dh)) ?? new Map<string, PaintedShape[]>();
}

/** Colours painted as uniform simple shapes on the colour pages, when the document prints no values. */
function swatchColors(doc: DocumentModel): string[] {
  const pages = doc.swatchPages;
  const onPages = doc.shapes
    .filter((s) => pages.has(s.page) && Math.min(s.width, s.height) >= 10)
    .slice(0, MAX_SWATCH_SHAPES);
  const chromatic = onPages.filter((s) => isChromatic(s.hex));
  const sameSize = (a: PaintedShape, b: PaintedShape) =>
    a.page === b.page &&
    Math.abs(a.width - b.width) <= 0.06 * Math.max(a.width, b.width) &&
    Math.abs(a.height - b.height) <= 0.06 * Math.max(a.height, b.height);
  // A swatch set repeats one shape size; a lone coloured shape is decoration. Only shapes of nearby
  // size on the same page are compared (each with every other, thousands of shapes took seconds).
  const chromaticBuckets = sizeBuckets(chromatic);
  const swatchSized = chromatic.filter((s) => {
    for (const [hex, others] of around(chromaticBuckets, s))
      if (hex !== s.hex && others.some((o) => sameSize(o, s))) return true;
    return false;
  });
  const sizedBuckets = sizeBuckets(swatchSized);
  const swatches = onPages.filter((s) => {
    for (const [, sized] of around(sizedBuckets, s)) if (sized.some((c) => sameSize(c, s))) return true;
    return false;
  });
  const area = new Map<string, number>();
  for (const s of swatches) area.set(s.hex, (area.get(s.hex) ?? 0) + s.width * s.height);
  return [...area.entries()].sort((a, b) => b[1] - a[1]).map(([hex]) => hex);
}

export interface PaletteFindings {
  palette: string[];
  primary: string | null;
  secondary: string | null;
  accent: string | null;
  source: 'printed' | 'swatches' | 'none';
}

const ROLE_RANK: Record<ColorRole | 'none', number> = {
  primary: 0,
  secondary: 1,
  accent: 2,
  none: 3,
  neutral: 4,
};

export function findPalette(doc: DocumentModel): PaletteFindings {
  const mentions = doc.printedColors;
  if (mentions.length > 0) {
    const entries = new Map<string, { role: ColorRole | 'none'; count: number; first: number }>();
    const labels = roleLabels(doc.lines);
    const ownRoles = new Map<number, ColorRole | null>();
    for (const mention of mentions) {
      if (!ownRoles.has(mention.index))
        ownRoles.set(mention.index, roleOf(mention.line.text.replace(HEX_CODE, '')));
      const role = mentionRole(labels, mention, ownRoles.get(mention.index)!) ?? 'none';
      const entry = entries.get(mention.hex);
      if (!entry) entries.set(mention.hex, { role, count: 1, first: mention.index });
      else {
        entry.count++;
        if (ROLE_RANK[role] < ROLE_RANK[entry.role]) entry.role = role;
      }
    }
    const ordered = [...entries.entries()].sort(
      (a, b) => ROLE_RANK[a[1].role] - ROLE_RANK[b[1].role] || a[1].first - b[1].first,
    );
    const palette = ordered.map(([hex]) => hex);
    const pick = (role: ColorRole) =>
      ordered.find(([hex, e]) => e.role === role && isChromatic(hex))?.[0] ??
      ordered.find(([, e]) => e.role === role)?.[0] ??
      null;
    const chromatic = palette.filter(isChromatic);
    const primary = pick('primary') ?? chromatic[0] ?? palette[0] ?? null;
    const secondary = pick('secondary') ?? chromatic.find((hex) => hex !== primary) ?? null;
    const accent = pick('accent');
    return { palette, primary, secondary, accent, source: 'printed' };
  }
  let painted = swatchColors(doc);
  if (painted.length === 0) painted = doc.themeColors.filter(isChromatic);
  if (painted.length === 0)
    return { palette: [], primary: null, secondary: null, accent: null, source: 'none' };
  const chromatic = painted.filter(isChromatic);
  return {
    palette: painted,
    primary: chromatic[0] ?? null,
    secondary: chromatic[1] ?? null,
    accent: null,
    source: 'swatches',
  };
}
