import { AMBIGUOUS_FAMILIES, FONT_FAMILIES } from './font-families.ts';
import { checkDeadline, type Deadline, type DocumentModel, type TextLine } from './types.ts';

const compact = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const byCompactName = new Map(FONT_FAMILIES.map((family) => [compact(family), family]));

/** Text matched as itself inside a pattern: a font or brand name may hold `+`, `(` or `.`. */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Longest names first so "Avenir Next" is matched before "Avenir". */
const familyPattern = new RegExp(
  `(?<![\\p{L}\\p{N}])(${[...FONT_FAMILIES]
    .sort((a, b) => b.length - a.length)
    .map((f) => escapeRegExp(f).replace(/[ -]/g, '[ -]?'))
    .join('|')})(?![\\p{L}\\p{N}])`,
  'giu',
);

const STYLE_WORDS =
  /(Regular|Roman|Book|Italic|Oblique|Thin|Hairline|ExtraLight|UltraLight|Light|Medium|SemiBold|DemiBold|Semibold|Demi|ExtraBold|UltraBold|Bold|Black|Heavy|Condensed|Cond|Narrow|Wide|Extended|Variable|VF|Display|Text|PSMT|MT|PS|Std|Pro|LT|W\d+)$/;

/** Fonts PDF tools use for symbols and maths; never brand typefaces. */
const NON_BRAND_FONTS =
  /^(symbol|zapfdingbats|dingbats|wingdings|webdings|cm[a-z]{1,4}\d+|ms[a-z]m\d+|msam|msbm|t3font)/i;

/** Fonts a PDF falls back to when it embeds nothing; weak evidence of a brand choice. */
const FALLBACK_FONTS = new Set(['times', 'times new roman', 'helvetica', 'courier', 'arial']);

/** `ABCDEF+Montserrat-Bold` → `Montserrat`, `MyriadPro-LightCond` → `Myriad Pro`. */
export function familyFromFontName(raw: string): string | null {
  let name = raw.replace(/^[A-Z]{6}\+/, '').split(/[-,_]/)[0] ?? '';
  if (!name || NON_BRAND_FONTS.test(name)) return null;
  for (let i = 0; i < 3; i++) {
    const known = byCompactName.get(compact(name));
    if (known) return known;
    const stripped = name.replace(STYLE_WORDS, '');
    if (stripped === name || !stripped) break;
    name = stripped;
  }
  const known = byCompactName.get(compact(name));
  if (known) return known;
  if (/\d{2,}/.test(name)) return null;
  return name.replace(/([a-z])([A-Z])/g, '$1 $2').trim() || null;
}

export function isBoldFontName(raw: string): boolean {
  return /bold|black|heavy|semibold|demibold|extrabold/i.test(raw.replace(/^[A-Z]{6}\+/, ''));
}

const FONT_WORDS =
  /\b(fonts?|typefaces?|typography|typographie|tipograf[ií]a|schrift(en|art)?|police|type ?family|headings?|headlines?|body|weights?|regular|bold|light|medium|italic|pt|glyphs?)\b|\d+\s?pt\b/i;
const TYPOGRAPHY_HEADING = /typo|typeface|fonts?\b|schrift|police|letter/i;
const HEADINGS_ROLE =
  /\b(head(ing|line)s?|titles?|display|headers?|primary (type|font|typeface)|überschriften?|titres?|t[ií]tulos?)\b/i;
const BODY_ROLE =
  /\b(body|paragraphs?|running text|long[- ]form|copy ?text|body ?copy|text face|secondary (type|font|typeface)|fließtext|corps|cuerpo|texto)\b/i;

interface Mention {
  family: string;
  line: TextLine;
  index: number;
}

/**
 * Lines physically close to a line on the same page (the paragraph it labels or belongs to), in
 * document order. Each page's lines are sorted by height once, so a line's neighbours are a binary
 * search away: a pass over every line per mention made the font search quadratic (a DOCX of 20,000
 * lines naming fonts took 7 s).
 */
function neighbourFinder(lines: TextLine[]): (line: TextLine) => TextLine[] {
  const order = new Map(lines.map((line, at) => [line, at]));
  const pages = new Map<number, TextLine[]>();
  for (const line of lines) {
    const page = pages.get(line.page);
    if (page) page.push(line);
    else pages.set(line.page, [line]);
  }
  for (const page of pages.values()) page.sort((a, b) => a.y - b.y);
  return (line) => {
    const reach = Math.max(line.size, 8);
    const page = pages.get(line.page) ?? [];
    const [low, high] = [line.y - 4.5 * reach, line.y + 1.6 * reach];
    let start = 0;
    for (let end = page.length; start < end; ) {
      const middle = (start + end) >>> 1;
      if (page[middle]!.y < low) start = middle + 1;
      else end = middle;
    }
    const near: TextLine[] = [];
    for (let i = start; i < page.length && page[i]!.y <= high; i++) {
      const other = page[i]!;
      if (other !== line && Math.abs(other.x - line.x) < 12 * reach) near.push(other);
    }
    return near.sort((a, b) => order.get(a)! - order.get(b)!);
  };
}

export interface FontFindings {
  headings: string | null;
  body: string | null;
  all: string[];
}

export function findFonts(doc: DocumentModel, deadline: Deadline): FontFindings {
  const { lines } = doc;
  const typographyPages = new Set(
    lines.filter((l) => l.level > 0 && TYPOGRAPHY_HEADING.test(l.text)).map((l) => l.page),
  );
  const embedded = new Set([...doc.fontUse.keys()].map((f) => f.toLowerCase()));
  const neighbours = neighbourFinder(lines);
  const mentions: Mention[] = [];
  lines.forEach((line, index) => {
    checkDeadline(deadline);
    // match() reuses the pattern; matchAll copies it per call, which for this big one costs more than the search.
    for (const found of line.text.match(familyPattern) ?? []) {
      const family = byCompactName.get(compact(found));
      if (!family) continue;
      const key = family.toLowerCase();
      const accepted =
        !AMBIGUOUS_FAMILIES.has(key) ||
        embedded.has(key) ||
        FONT_WORDS.test(line.text.replace(found, '')) ||
        (typographyPages.has(line.page) && line.text.split(/\s+/).length <= 6) ||
        neighbours(line).some((n) => n.level > 0 && TYPOGRAPHY_HEADING.test(n.text));
      if (accepted) mentions.push({ family, line, index });
    }
  });

  // A role word next to a mention assigns that role; the closest mention to the role word wins.
  let headings: { family: string; distance: number } | null = null;
  let body: { family: string; distance: number } | null = null;
  for (const mention of mentions) {
    checkDeadline(deadline);
    const context = [mention.line, ...neighbours(mention.line)];
    for (const line of context) {
      const distance = Math.abs(line.y - mention.line.y) + (line === mention.line ? 0 : 1);
      const { text } = line;
      if (HEADINGS_ROLE.test(text) && !BODY_ROLE.test(text) && (!headings || distance < headings.distance))
        headings = { family: mention.family, distance };
      if (BODY_ROLE.test(text) && !HEADINGS_ROLE.test(text) && (!body || distance < body.distance))
        body = { family: mention.family, distance };
    }
  }

  const named = [...new Set(mentions.map((m) => m.family))];
  const usage = [...doc.fontUse.entries()].sort((a, b) => b[1] - a[1]).map(([family]) => family);
  const headingFont = (candidates: string[]) => {
    const top = lines.filter((l) => l.level > 0 && l.font && candidates.includes(l.font));
    top.sort((a, b) => a.level - b.level);
    return top[0]?.font ?? null;
  };

  let headingsFont = headings?.family ?? null;
  let bodyFont = body?.family ?? null;
  if (named.length > 0) {
    // The text names fonts without roles: the document's own use of them tells which is which.
    const usedNamed = usage.filter((f) => named.includes(f));
    bodyFont ??= usedNamed[0] ?? null;
    headingsFont ??= headingFont(usedNamed.filter((f) => f !== bodyFont));
  } else if (doc.themeFonts.headings || doc.themeFonts.body) {
    headingsFont = doc.themeFonts.headings;
    bodyFont = doc.themeFonts.body;
  } else {
    const brandUsage = usage.filter((f) => !FALLBACK_FONTS.has(f.toLowerCase()));
    bodyFont = brandUsage[0] ?? null;
    headingsFont = headingFont(brandUsage) ?? bodyFont;
  }
  if (headingsFont === bodyFont && named.length > 1 && headings === null) headingsFont = null;

  const all = [
    ...new Set(
      [headingsFont, bodyFont, ...named, doc.themeFonts.headings, doc.themeFonts.body, ...usage].filter(
        (f): f is string => !!f && !FALLBACK_FONTS.has(f.toLowerCase()),
      ),
    ),
  ];
  return { headings: headingsFont, body: bodyFont, all };
}

/** The font the text names for the wordmark or logotype, if any. */
export const wordmarkFont = (families: string[], text: string): string | null =>
  families.find((family) => {
    const name = escapeRegExp(family);
    return new RegExp(
      `(wordmark|logotype|word mark)[^.]{0,60}\\b${name}\\b|\\b${name}\\b[^.]{0,60}(wordmark|logotype)`,
      'i',
    ).test(text);
  }) ?? null;
