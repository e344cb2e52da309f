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

export function printedColors(lines: TextLine[]): ColorMention[] {
  const found: ColorMention[] = [];
  let model: string | null = null;
  let modelPage = -1;
  lines.forEach((line, index) => {
    const text = line.text;
    const header = MODEL_HEADER.exec(text);
    if (header) {
      model = header[1]!.toLowerCase().replace(/\s/g, '');
      modelPage = line.page;
      return;
    }
    if (line.page !== modelPage) model = null;
    const add = (hex: string | null, kind: ColorMention['kind']) => {
      if (hex) found.push({ hex, kind, index, line });
    };
    for (const m of allMatches(HEX_CODE, text)) {
      const digits = m[1]!;
      // "#123" is more often a number than a colour.
      if (digits.length === 3 && /^\d+$/.test(digits) && m[0].startsWith('#')) continue;
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
  });

  // Colours shown as misuse ("don't recolour the logo #FF0000") are not part of the palette.
  const misuse = (m: ColorMention) =>
    [lines[m.index - 1], m.line].some((l) => l && l.page === m.line.page && MISUSE.test(l.text));
  const allowed = found.filter((m) => !misuse(m));
  found.length = 0;
  found.push(...allowed);
  // One swatch often prints the same colour as HEX, RGB and CMYK: keep the most exact notation.
  const exact = found.filter((m) => m.kind !== 'cmyk');
  const kept = found.filter((m) => {
    if (m.kind === 'hex') return true;
    if (m.kind === 'cmyk' && exact.length > 0) return false;
    return !found.some(
      (o) =>
        o !== m &&
        (o.kind === 'hex' || (m.kind === 'cmyk' && o.kind === 'rgb')) &&
        o.line.page === m.line.page &&
        Math.abs(o.index - m.index) <= 4 &&
        colorDistance(o.hex, m.hex) < 48,
    );
  });
  return kept;
}

const ROLE_WORDS: [ColorRole, RegExp][] = [
  ['accent', /\b(accents?|akzent\w*|acento|highlight)\b/i],
  ['secondary', /\b(secondary|sekundär\w*|secondaire|secundari[oa]|supporting|complementary|additional)\b/i],
  [
    'primary',
    /\b(primary|primär\w*|primaire|primari[oa]|principal|main|core|hauptfarben?|brand (palette|colou?rs?)|signature)\b/i,
  ],
  ['neutral', /\b(backgrounds?|neutrals?|dark|light|hintergrund|fond|fondo|greys?|grays?)\b/i],
];

function roleOf(text: string): ColorRole | null {
  for (const [role, pattern] of ROLE_WORDS) if (pattern.test(text)) return role;
  return null;
}

/** The nearest short label line that names a role, preferring labels read before the value. */
function mentionRole(lines: TextLine[], mention: ColorMention): ColorRole | null {
  const own = roleOf(mention.line.text.replace(HEX_CODE, ''));
  if (own && own !== 'neutral') return own;
  const labels = lines
    .map((line, index) => ({ line, index, role: roleOf(line.text) }))
    .filter(
      (l): l is { line: TextLine; index: number; role: ColorRole } =>
        l.role !== null && l.line.page === mention.line.page && l.line.text.split(/\s+/).length <= 6,
    );
  if (labels.length === 0) return own;
  const roles = new Set(labels.map((l) => l.role));
  if (roles.size === 1) return labels[0]!.role;
  const before = labels.filter((l) => l.index < mention.index).sort((a, b) => b.index - a.index);
  if (before[0]) return before[0].role;
  const above = labels
    .filter((l) => l.line.y >= mention.line.y)
    .sort((a, b) => a.line.y - mention.line.y - (b.line.y - mention.line.y));
  return above[0]?.role ?? own;
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

/** Colours painted as uniform simple shapes on the colour pages, when the document prints no values. */
function swatchColors(doc: DocumentModel): string[] {
  const pages = doc.swatchPages;
  const onPages = doc.shapes.filter((s) => pages.has(s.page) && Math.min(s.width, s.height) >= 10);
  const chromatic = onPages.filter((s) => isChromatic(s.hex));
  const sameSize = (a: PaintedShape, b: PaintedShape) =>
    a.page === b.page &&
    Math.abs(a.width - b.width) <= 0.06 * Math.max(a.width, b.width) &&
    Math.abs(a.height - b.height) <= 0.06 * Math.max(a.height, b.height);
  // A swatch set repeats one shape size; a lone coloured shape is decoration.
  const swatchSized = chromatic.filter((s) =>
    chromatic.some((o) => o !== s && o.hex !== s.hex && sameSize(o, s)),
  );
  const swatches = onPages.filter((s) => swatchSized.some((c) => sameSize(c, s)));
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
    for (const mention of mentions) {
      const role = mentionRole(doc.lines, mention) ?? 'none';
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
