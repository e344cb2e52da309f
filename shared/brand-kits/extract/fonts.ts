import { AMBIGUOUS_FAMILIES, FONT_FAMILIES } from './font-families.ts';
import { checkDeadline, type Deadline, type DocumentModel, type TextLine } from './types.ts';

const compact = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const byCompactName = new Map(FONT_FAMILIES.map((family) => [compact(family), family]));

/** Text matched as itself inside a pattern: a font or brand name may hold `+`, `(` or `.`. */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Longer than this, a name (a brand's, a typeface's) is none: OpenType's names stop at 63 characters,
 * and a 60,000-character one, built into a pattern, passed the engine's size (a 500). */
export const MAX_NAME_LENGTH = 100;

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

/** The clause of its line a mention is in: to the . ! ? that ends a sentence (followed by a capital:
 * not "1.5 em" or "approx. 24 pt") or a ;. */
function clauseOf(mention: Mention): string {
  const { text } = mention.line;
  const starts = [...text.slice(0, mention.at).matchAll(/[.!?](?=\s+\p{Lu})|;/gu)];
  const start = starts.length > 0 ? starts.at(-1)!.index + 1 : 0;
  const end = text.slice(mention.at).search(/[.!?](?=\s+\p{Lu})|;|[.!?]\s*$/u);
  return text.slice(start, end < 0 ? text.length : mention.at + end);
}

/** A clause that rules a font out of the brand's text, or gives it to the logo. */
const NOT_FOR_TEXT =
  /\b(never|not|don['’]?t|avoid|instead of|logo\w*|word ?mark|logotype|unavailable|fallback|substitute)\b/i;

interface Mention {
  family: string;
  line: TextLine;
  index: number;
  /** Where on its line the family is named. */
  at: number;
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
  const at = new Map<TextLine, number>();
  for (const page of pages.values()) {
    page.sort((a, b) => a.y - b.y);
    for (const [i, line] of page.entries()) at.set(line, i);
  }
  const found = new Map<TextLine, TextLine[]>();
  return (line) => {
    const known = found.get(line);
    if (known) return known;
    // The document sets the size: a giant one made every line of the page a neighbour (quadratic).
    const reach = Math.min(Math.max(line.size, 8), MAX_REACH);
    const page = pages.get(line.page) ?? [];
    const [low, high] = [line.y - 4.5 * reach, line.y + 1.6 * reach];
    // Outward from the line, nearest first, so lines stacked at one height stop at the cap.
    const near: TextLine[] = [];
    const self = at.get(line) ?? 0;
    let [below, above] = [self - 1, self + 1];
    for (let seen = 0; near.length < MAX_NEIGHBOURS && seen < 4 * MAX_NEIGHBOURS; seen++) {
      const down = below >= 0 && page[below]!.y >= low ? page[below]! : null;
      const up = above < page.length && page[above]!.y <= high ? page[above]! : null;
      if (!down && !up) break;
      const other = down && (!up || line.y - down.y <= up.y - line.y) ? down : up!;
      if (other === down) below--;
      else above++;
      if (other !== line && Math.abs(other.x - line.x) < 12 * reach) near.push(other);
    }
    near.sort((a, b) => order.get(a)! - order.get(b)!);
    found.set(line, near);
    return near;
  };
}

/** Font sizes past this are posters, not text: the neighbour window stops growing with them. */
const MAX_REACH = 72;
/** Lines a line is compared with: a label and its paragraph are a few, not a page of thousands. */
const MAX_NEIGHBOURS = 64;
/** Typefaces a document is credited with: the named ones, then the most used (a DOCX can set every
 * run in another family, and every font is searched for in the text and the links). */
export const MAX_FONTS = 24;
/** Spellings of font names per line whose removal is checked for font words; past these, the line's. */
const MAX_SPELLINGS_PER_LINE = 32;

/** `read`, run on the first call only. */
function once<T>(read: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) [value, done] = [read(), true];
    return value;
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
  const typographyHeadings = new Set(lines.filter((l) => l.level > 0 && TYPOGRAPHY_HEADING.test(l.text)));
  const mentions: Mention[] = [];
  lines.forEach((line, index) => {
    checkDeadline(deadline);
    // The checks that read the whole line run once per line (per match, one long line naming a
    // font thousands of times took 48 s); a family already taken on this line adds nothing.
    const taken = new Set<string>();
    const fontWordsWithout = new Map<string, boolean>();
    const shortOnTypePage = once(() => typographyPages.has(line.page) && line.text.split(/\s+/).length <= 6);
    const nearTypeHeading = once(() => neighbours(line).some((n) => typographyHeadings.has(n)));
    // exec() reuses the pattern; matchAll copies it per call, which for this big one costs more than the
    // search. Each match keeps where it is on the line (a clause's role is read there).
    familyPattern.lastIndex = 0;
    for (let m = familyPattern.exec(line.text); m; m = familyPattern.exec(line.text)) {
      const found = m[0]; // never empty: every alternative is a family's name
      const family = byCompactName.get(compact(found));
      if (!family || taken.has(family)) continue;
      const key = family.toLowerCase();
      const fontWords = () => {
        let without = fontWordsWithout.get(found);
        if (without === undefined) {
          const text =
            fontWordsWithout.size < MAX_SPELLINGS_PER_LINE ? line.text.replace(found, '') : line.text;
          without = FONT_WORDS.test(text);
          fontWordsWithout.set(found, without);
        }
        return without;
      };
      const accepted =
        !AMBIGUOUS_FAMILIES.has(key) ||
        embedded.has(key) ||
        fontWords() ||
        shortOnTypePage() ||
        nearTypeHeading();
      if (accepted) {
        taken.add(family);
        mentions.push({ family, line, index, at: m.index });
      }
    }
  });

  // A role word next to a mention assigns that role; the closest mention to the role word wins.
  let headings: { family: string; distance: number } | null = null;
  let body: { family: string; distance: number } | null = null;
  // A line's role words are read once, however many mentions it is next to. A line naming both roles
  // gives neither, except to a mention on it, which takes its own clause's ("Headlines use Montserrat;
  // body copy uses Merriweather" gave no fonts at all).
  const roles = new Map<TextLine, ReturnType<typeof rolesIn>>();
  const rolesIn = (text: string) => {
    const [h, b] = [HEADINGS_ROLE.test(text), BODY_ROLE.test(text)];
    return { headings: h && !b, body: b && !h, both: h && b };
  };
  const roleOf = (line: TextLine) => {
    let role = roles.get(line);
    if (!role) {
      role = rolesIn(line.text);
      roles.set(line, role);
    }
    return role;
  };
  const roleOfMention = (mention: Mention) => {
    const role = roleOf(mention.line);
    return role.both ? rolesIn(clauseOf(mention)) : role;
  };
  for (const mention of mentions) {
    checkDeadline(deadline);
    const context = [mention.line, ...neighbours(mention.line)];
    for (const line of context) {
      const distance = Math.abs(line.y - mention.line.y) + (line === mention.line ? 0 : 1);
      const role = line === mention.line ? roleOfMention(mention) : roleOf(line);
      if (role.headings && (!headings || distance < headings.distance))
        headings = { family: mention.family, distance };
      if (role.body && (!body || distance < body.distance)) body = { family: mention.family, distance };
    }
  }

  const named = [...new Set(mentions.map((m) => m.family))];
  // Fonts the text names for the brand's own text: not a fallback (Arial), not one it rules out
  // ("Never use Lobster"), not the logo's.
  const brandNamed = [
    ...new Set(
      mentions
        .filter((m) => !FALLBACK_FONTS.has(m.family.toLowerCase()) && !NOT_FOR_TEXT.test(clauseOf(m)))
        .map((m) => m.family),
    ),
  ];
  const namedSet = new Set(named);
  const usage = [...doc.fontUse.entries()]
    .filter(([family]) => family.length <= MAX_NAME_LENGTH)
    .sort((a, b) => b[1] - a[1])
    .map(([family]) => family);
  const headingFont = (candidates: string[]) => {
    const set = new Set(candidates);
    const top = lines.filter((l) => l.level > 0 && l.font && set.has(l.font));
    top.sort((a, b) => a.level - b.level);
    return top[0]?.font ?? null;
  };

  let headingsFont = headings?.family ?? null;
  let bodyFont = body?.family ?? null;
  if (named.length > 0) {
    // The text names fonts without roles: the document's own use of them tells which is which.
    const usedNamed = usage.filter((f) => namedSet.has(f));
    if (usedNamed.length === 0 && !headingsFont && !bodyFont && brandNamed.length > 0) {
      // Named, unused (a DOCX's runs are in its theme's fonts): guidelines list the headings face
      // first. It gave no fonts at all.
      headingsFont = brandNamed[0]!;
      bodyFont = brandNamed[1] ?? brandNamed[0]!;
    }
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
  ].slice(0, MAX_FONTS);
  return { headings: headingsFont, body: bodyFont, all };
}

/** The font the text names for the wordmark or logotype, if any. */
export function wordmarkFont(families: string[], text: string): string | null {
  // Each name is searched only in the stretches around a "wordmark"/"logotype" (a match reaches at
  // most 60 characters and the name past it), widened to word edges so \b reads as in the whole text:
  // per family over the whole text, thousands of families took minutes.
  const reach = 61 + families.reduce((longest, f) => Math.max(longest, f.length), 0);
  const isWord = (at: number) => {
    const c = text.charCodeAt(at);
    return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
  };
  const stretches: [number, number][] = [];
  for (const m of text.matchAll(/wordmark|logotype|word mark/gi)) {
    const last = stretches.at(-1);
    let start = Math.max(0, m.index - reach);
    let end = Math.min(text.length, m.index + m[0].length + reach);
    if (last && end <= last[1]) continue;
    while (end < text.length && isWord(end)) end++;
    const floor = last?.[1] ?? 0;
    while (start > floor && isWord(start - 1)) start--;
    if (last && start <= last[1]) last[1] = end;
    else stretches.push([start, end]);
  }
  if (stretches.length === 0) return null;
  const around = stretches.map(([start, end]) => text.slice(start, end));
  return (
    families.find((family) => {
      const name = escapeRegExp(family);
      const pattern = new RegExp(
        `(wordmark|logotype|word mark)[^.]{0,60}\\b${name}\\b|\\b${name}\\b[^.]{0,60}(wordmark|logotype)`,
        'i',
      );
      return around.some((part) => pattern.test(part));
    }) ?? null
  );
}
