import { trimEdges } from '../../strings.ts';
import { escapeRegExp, MAX_NAME_LENGTH } from './fonts.ts';
import { type Section, sections } from './layout.ts';
import type { DocumentModel, TextLine } from './types.ts';

type TextField =
  | 'tagline'
  | 'mission_statement'
  | 'brand_voice'
  | 'target_audience'
  | 'imagery_style'
  | 'industry'
  | 'location';
type ListField = 'competitors' | 'seo_keywords' | 'content_pillars' | 'tone_keywords';

/** Section headings that hold each field (with cheap translations). The single place for synonyms. */
const FIELD_HEADINGS: Record<TextField | ListField, RegExp> = {
  tagline: /\b(tag ?lines?|slogans?|claims?|straplines?|mottos?|catch ?phrases?|brand ?lines?|leitspruch)\b/i,
  mission_statement:
    /\b(mission|purpose|why we exist|raison d['’]être|leitbild|misión|missão|propósito|mission statement)(?![\p{L}\p{N}_])/iu,
  brand_voice:
    /\b(voice|tone|how we (speak|sound|write|talk)|personality|tonality|writing style|tonalität|sprache|ton)\b/i,
  tone_keywords: /\b(tone|voice|personality|brand attributes|brand values|characteristics|traits)\b/i,
  target_audience:
    /\b(audiences?|target (group|market)s?|who we serve|our customers|personas?|zielgruppen?|public cible|público[- ]alvo|público objetivo|audiencias?)(?![\p{L}\p{N}_])/iu,
  imagery_style:
    /\b(imagery|photography|photos?|pictures|illustrations?|visual style|art direction|patterns?|bildsprache|iconography)\b/i,
  industry: /\b(industry|sector|market|category|branche|secteur)\b/i,
  location: /\b(location|headquarters|hq|where we are|address|offices?|standort|siège)\b/i,
  competitors:
    /\b(competitors?|competition|competitive landscape|alternatives|wettbewerb(er)?|concurrents?)\b/i,
  seo_keywords: /\b(seo|keywords?|search terms|schlüsselwörter|mots[- ]clés)\b/i,
  content_pillars: /\b(content pillars?|pillars?|content themes|key themes|topics|key messages|messaging)\b/i,
};

const GENERIC_TITLE =
  /\b(brand|guide(lines?)?|book|manual|style|identity|logo(type)?s?|usage|standards?|version|v\d|final|draft|editable|contents?|introduction|colou?rs?|typography|visual|design|system|kit|assets?|tone|voice|of|the|and|press|media|guidelines|copy|template|untitled|document|presentation|slides?|our|your|my|we|how|why|what|this|welcome|hello|about|overview|table|chapter|section|page)\b/gi;
const GUIDE_PHRASE =
  /(brand ?(guidelines?|guide|book|manual|standards|identity|identity guidelines)|style ?guide|identity guidelines|logo (usage )?guidelines|design system|tone of voice( guide)?|corporate design( manual)?|brand ?kit|markenhandbuch|charte graphique)/i;

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();
const QUOTES = new Set('"“”\'‘’«»');
/** Without the quotes it opens and ends with (a pattern anchored at the end took 25 s for one line of
 * 160,000 quotes between two letters). */
const stripQuotes = (s: string) => trimEdges(s, (c) => QUOTES.has(c)).trim();
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/**
 * Body lines joined into running text, undoing end-of-line hyphenation. The text is built from pieces
 * and only its last characters are tested: testing the whole text at every line took time growing
 * with the square of its length (a 260 KB DOCX of 1 MB of text took 4 s, one of 4 MB 74 s).
 */
function joinLines(lines: TextLine[]): string {
  const pieces: string[] = [];
  let tail = ''; // the text's last characters: enough for the tests below
  const append = (piece: string) => {
    pieces.push(piece);
    tail = (tail + piece).slice(-4);
  };
  let prev: TextLine | null = null;
  for (const line of lines) {
    const text = line.text.trim();
    // A switch between bold and regular without punctuation separates a lead-in from its text.
    if (prev && prev.bold !== line.bold && !/[.!?:;,]$/.test(tail)) append('.');
    prev = line;
    if (!tail) {
      if (text) append(text);
    } else if (/\p{L}-$/u.test(tail) && /^\p{Ll}/u.test(text)) {
      const last = pieces.length - 1;
      pieces[last] = pieces[last]!.slice(0, -1);
      tail = tail.slice(0, -1);
      append(text);
    } else append(` ${text}`);
  }
  return clean(pieces.join(''));
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[\p{Lu}"“‘(0-9])/u)
    .map(clean)
    .filter(Boolean);
}

function firstSentences(text: string, count: number, maxChars = 400): string | null {
  const picked = sentences(text).slice(0, count).join(' ');
  if (!picked) return null;
  return picked.length > maxChars ? `${picked.slice(0, maxChars).replace(/\s+\S*$/, '')}…` : picked;
}

/**
 * The first section under a field's heading. Where that heading stands over chapters of other topics
 * too (a title "Umbrella Voice Guide" over "Our voice" and "Colours": its section gave every heading
 * and colour line of the document as tone keywords), the first of its chapters that is the field's.
 * A section whose chapters are all the field's ("Content pillars" over "Pillar 1" … "Pillar 3", or
 * "Tagline" over "Tagline usage") is the field's whole, intro and all.
 */
function fieldSection(all: Section[], field: TextField | ListField): Section | null {
  const pattern = FIELD_HEADINGS[field];
  const holdsField = (s: Section) =>
    words(s.heading.text) <= 8 && pattern.test(s.heading.text) && s.body.some((l) => l.text.trim());
  const at = all.findIndex(holdsField);
  if (at === -1) return null;
  const found = all[at]!;
  // Its nested sections: up to a heading as important, or to the labelled lines (level 0, put after).
  // Its chapters are those of the shallowest level among them.
  const nested: Section[] = [];
  let chapterLevel = Number.POSITIVE_INFINITY;
  for (let i = at + 1; i < all.length; i++) {
    const s = all[i]!;
    if (s.heading.level === 0 || s.heading.level <= found.heading.level) break;
    nested.push(s);
    chapterLevel = Math.min(chapterLevel, s.heading.level);
  }
  const chapters = nested.filter((s) => s.heading.level === chapterLevel);
  const own = chapters.filter(holdsField);
  return own.length > 0 && own.length < chapters.length ? own[0]! : found;
}

const LABEL_LINE = /^\s*(\p{L}[\p{L}'’&/ -]{0,40}?)\s*[:：]\s*(\S.*)$/u;
const WEBSITE_LABEL = /^(web ?site( url)?|web|url|homepage|home page)$/i;
/** "Brand name: Acme", as fact sheets state the name: said outright, it wins over every guess. */
const NAME_LABEL =
  /^(brand( name)?|name|company( name)?|business( name)?|organi[sz]ation( name)?|markenname|nom de (la )?marque|nome da marca|nombre de (la )?marca|empresa)$/i;

/**
 * "Label: value" lines, as fact sheets and briefs state fields ("Industry: Food and beverage"), read as
 * sections: the label (at most four words) their heading, the value their body, with the lines a PDF
 * wrapped it onto (they go on in lower case until it ends). Put after the document's own sections, so
 * a section under a field's heading wins over a labelled line (fieldSection takes the first).
 */
export function labelledSections(lines: TextLine[]): Section[] {
  const out: Section[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = LABEL_LINE.exec(line.text);
    if (!m || words(m[1]!) > 4) continue;
    const body = [{ ...line, text: clean(m[2]!) }];
    // Bounded: a field keeps a sentence or two of it (firstSentences).
    let length = body[0]!.text.length;
    for (let j = i + 1; j < lines.length && !/[.!?]$/.test(lines[j - 1]!.text.trim()) && length < 2000; j++) {
      const next = lines[j]!;
      const text = next.text.trim();
      if (next.page !== line.page || next.level !== 0 || !/^\p{Ll}/u.test(text) || LABEL_LINE.test(text))
        break;
      body.push(next);
      length += text.length;
    }
    out.push({ heading: { ...line, text: clean(m[1]!) }, body });
  }
  return out;
}

/** The value of a "Website:" line, when the document has one. */
export const labelledWebsite = (labelled: Section[]) =>
  labelled.find((section) => WEBSITE_LABEL.test(section.heading.text))?.body[0]?.text;

const LIST_SEPARATORS = /[•·;|,]|\s[–—-]\s|^\s*[-*]\s/;

/** Short items of a list section: bullet lines, or comma / semicolon separated runs. */
function listItems(lines: readonly { text: string }[], maxWords = 6): string[] {
  const items: string[] = [];
  for (const line of lines) {
    for (const part of line.text.split(LIST_SEPARATORS)) {
      const item = stripQuotes(clean(part.replace(/^\d+[.)]\s*/, '').replace(/[.:]$/, '')));
      if (item && words(item) <= maxWords && /\p{L}/u.test(item)) items.push(item);
    }
  }
  return [...new Set(items)].slice(0, 15);
}

// Adjectives a sentence ascribes to the brand: "a vibrant, dynamic and forward-looking brand".
const ADJECTIVE_LIST =
  /\b(?:is|are|be|being|feels?|sounds?|represents?|remain|stay)\s+(?:always\s+|incredibly\s+|very\s+)?(?:an?\s+)?([\p{L}-]+(?:,\s*[\p{L}-]+)*,?\s+(?:and|&)\s+[\p{L}-]+)/iu;
const TONE_CUE = /\b(tone|voice|brand|personality|we speak|we sound|we write|our words)\b/i;
// One adjective the voice itself is given: "the way we talk must be human", "our voice is warm".
const VOICE_ADJECTIVE =
  /\b(?:tone|voice|(?:the )?way we (?:talk|speak|write|sound))\s+(?:(?:must|should|will|can)\s+)?(?:always\s+)?(?:be|is|sounds?|feels?)\s+(\p{Ll}[\p{Ll}-]{2,})(?=\s*(?:[.,;!]|$))/iu;
// `(?<!\s)`: each run of blanks is tried from its start only (from every blank of it, a run was read
// to its end each time: the square of its length). The same matches: a match's blanks start a run.
const TRAILING_NOUN = /(?<!\s)\s+(brand|voice|tone|company|identity|look|feel|personality|way|style)$/i;
/** The commas and `and`s between the items of a list (the blanks behind `(?<!\s)` as above). */
const TONE_LIST_SEPARATOR = /,\s*|(?<!\s)\s+(?:and|&)\s+/;

/** A list line's bullet or number, taken off before its words are read. */
const BULLET = /^\s*(?:[•·▪◦●○■□–—*-]|\d{1,2}[.)])\s*/;
/** Headings of Do / Don't lists and of what the brand is not: their lines are instructions ("Use
 * short sentences") or the tones it rejects ("Cold"), no traits of its own. */
const NOT_TRAITS_HEADING =
  /^(?:do(?:['’]?s)?|don['’]?ts?|do not|dos and don['’]?ts|avoid|never|instead|not|we are not|we['’]re not|we aren['’]t|not this)\s*:?$/i;
/** A trait of one to three words that leads its gloss: "Confident — we know…", "Warm, not gushing". */
const TRAIT_LEAD =
  /^(\p{L}[\p{L}'’-]*(?:\s+\p{L}[\p{L}'’-]*){0,2})\s*(?:\s[—–-]\s|[—–]|,\s*(?:but\s+)?(?:not|never)\b)/u;
/** "Witty: a light touch…", taken on a bullet line only: elsewhere "In short: …" would be a trait. */
const TRAIT_LABEL = /^(\p{L}[\p{L}'’-]*(?:\s+\p{L}[\p{L}'’-]*){0,2})\s*:/u;
/** Words that start a sentence or a note, not a trait ("We are", "Our promise", "For example"). */
const NOT_A_TRAIT = /^(?:we|we['’]re|our|us|you|your|it|this|that|the|an?|in|for|e\.?g|example|note|tip)\b/i;
/** Headings side by side ("We are" | "We are not") kept for the lines under them, each of which looks
 * at every one: a row is a few columns. */
const MAX_ROW_HEADINGS = 16;

/**
 * What a tone section's lines list as traits: a line of short items ("warm, plain"), or the trait that
 * leads a line's description ("• Confident — we know our stuff."). Not a sentence ("…, never a
 * salesperson."), whose comma-separated parts are no keywords, nor a wrapped line of prose ("…talks,
 * patient, curious and"), nor a line that introduces a list ("We are:"), nor anything under a Do /
 * Don't heading. Where such headings stand side by side, a line is under the nearest across (in a
 * DOCX, whose lines all stand at x 0, the last one).
 */
function traitLines(section: Section): string[] {
  const out: string[] = [];
  let row: { line: TextLine; rejects: boolean }[] = [];
  for (const line of section.body) {
    const bullet = BULLET.test(line.text);
    const text = line.text.trim().replace(BULLET, '');
    const rejects = NOT_TRAITS_HEADING.test(text);
    if (line.level > 0 || rejects) {
      const first = row[0]?.line;
      const sameRow =
        first && first.page === line.page && Math.abs(first.y - line.y) < 0.5 * Math.max(line.size, 1);
      if (!sameRow) row = [];
      if (row.length < MAX_ROW_HEADINGS) row.push({ line, rejects });
      if (rejects) continue;
    } else {
      let under: (typeof row)[number] | undefined;
      for (const heading of row)
        if (!under || Math.abs(heading.line.x - line.x) <= Math.abs(under.line.x - line.x)) under = heading;
      if (under?.rejects) continue;
    }
    if (/[:：]$/.test(text)) continue;
    const lead = (TRAIT_LEAD.exec(text) ?? (bullet ? TRAIT_LABEL.exec(text) : null))?.[1];
    if (lead) out.push(lead);
    else if (!/[.!?]$/.test(text) && text.split(LIST_SEPARATORS).every((part) => words(part) <= 3))
      out.push(text);
  }
  return out;
}

function toneKeywords(text: string, section: Section | null): string[] {
  const found: string[] = [];
  for (const sentence of sentences(text)) {
    const list =
      (TONE_CUE.test(sentence) ? ADJECTIVE_LIST.exec(sentence)?.[1] : undefined) ??
      VOICE_ADJECTIVE.exec(sentence)?.[1];
    if (!list) continue;
    for (const part of list.split(TONE_LIST_SEPARATOR)) {
      const item = part
        .replace(TRAILING_NOUN, '')
        .replace(/^(and|or)\s+/i, '')
        .trim()
        .toLowerCase();
      if (item && item.length > 2 && words(item) <= 2) found.push(item);
    }
  }
  if (section) {
    const lists = traitLines(section).map((text) => ({ text }));
    for (const item of listItems(lists, 3))
      if (
        !/[.!?]$/.test(item) &&
        !/[\d#]/.test(item) && // a colour value or a size ("Primary: #D7263D"), no trait
        !NOT_A_TRAIT.test(item) &&
        !FIELD_HEADINGS.tone_keywords.test(item)
      )
        found.push(item.toLowerCase());
  }
  return [...new Set(found)].slice(0, 12);
}

function missionStatement(text: string, section: Section | null): string | null {
  if (section) {
    const body = joinLines(section.body);
    const quoted = /^["“]([^"”]{3,200})["”]/.exec(body)?.[1];
    if (quoted) return clean(quoted);
    const first = sentences(body)[0];
    if (first) return stripQuotes(first);
  }
  const all = sentences(text);
  for (let i = 0; i < all.length; i++) {
    const s = all[i]!;
    const inline = /\bour mission is\b|\bmission:\s/i.exec(s);
    if (inline) return stripQuotes(s);
    // "…everybody. This mission permeates all we do": the sentence before states the mission.
    if (i > 0 && /^(this|that|our) (mission|purpose)\b/i.test(s)) return stripQuotes(all[i - 1]!);
  }
  return null;
}

/** A standalone sentence on the cover pages, the way taglines are usually set. */
function coverTagline(lines: TextLine[], name: string | null): string | null {
  for (const page of [1, 2]) {
    const onPage = lines.filter((l) => l.page === page);
    if (onPage.length === 0 || onPage.length > 4) continue;
    for (const line of onPage) {
      const text = stripQuotes(line.text);
      const n = words(text);
      if (n < 3 || n > 16) continue;
      if (GUIDE_PHRASE.test(text) || /\b(19|20)\d\d\b|\bv\.?\s?\d/i.test(text)) continue;
      // "Brand name: Acme", "Primary colour: #112233": a field, not a slogan.
      if (LABEL_LINE.test(text)) continue;
      if (name && text.toLowerCase() === name.toLowerCase()) continue;
      return text;
    }
  }
  return null;
}

const TITLE_SEPARATOR = /\s*[•·|–—:]\s*|\s+-\s+/;
/** Metadata titles longer than this are cut: a name is at the start, and a title is a line or two. */
const MAX_TITLE = 500;
/**
 * Parts of a title between its separators. TITLE_SEPARATOR is tried from every blank of a run and
 * reads the run to its end each time, so runs are made single blanks first: a metadata title, unlike
 * the lines, was split as the document gave it (40 s for a title of 160,000 blanks).
 */
const titleParts = (title: string) => title.replace(/\s+/g, ' ').split(TITLE_SEPARATOR);

/** Prefers the form the running text uses ("Zowe Conformant") over a shouted cover ("ZOWE CONFORMANT"). */
function preferredCase(name: string, text: string): string {
  if (name !== name.toUpperCase()) return name;
  const escaped = escapeRegExp(name).replace(/\s+/g, '\\s+');
  const mixed = [...text.matchAll(new RegExp(`\\b${escaped}\\b`, 'gi'))]
    .map((m) => m[0])
    .find((m) => m !== name);
  if (mixed) return clean(mixed);
  // Short capitals are usually acronyms (IBM, NASA); longer ones are shouted words.
  if (name.split(/\s+/).every((w) => w.length <= 4)) return name;
  return name
    .toLowerCase()
    .replace(/(^|\s)(\p{L})/gu, (_, space: string, c: string) => space + c.toUpperCase());
}

function nameLike(text: string): boolean {
  if (text.length > MAX_NAME_LENGTH) return false;
  const n = words(text);
  const rest = text.replace(GENERIC_TITLE, '').replace(/[^\p{L}]/gu, '');
  return n >= 1 && n <= 4 && rest.length >= 2 && !/\d{3,}|[:@/]/.test(text);
}

function brandName(
  doc: DocumentModel,
  text: string,
  website: string | null,
  labelled: Section[],
): string | null {
  const stated = labelled.find((section) => NAME_LABEL.test(section.heading.text))?.body[0]?.text;
  const statedName = stated && clean(stated.replace(/[.;]$/, ''));
  if (statedName && nameLike(statedName)) return statedName;
  const { lines } = doc;
  // "<Name> brand guidelines" on one line, or the cover line right above "Brand Guidelines".
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = GUIDE_PHRASE.exec(line.text);
    if (!m) continue;
    const before = clean(titleParts(line.text.slice(0, m.index)).filter(Boolean).pop() ?? '');
    if (before && nameLike(before)) return preferredCase(before, text);
    const after = /^\s+(?:for|of|von|de|du)\s+(.+)$/i.exec(line.text.slice(m.index + m[0].length))?.[1];
    if (after && nameLike(clean(after))) return preferredCase(clean(after), text);
    const prev = lines[i - 1];
    if (!before && prev && prev.page === line.page && prev.page <= 2 && nameLike(prev.text))
      return preferredCase(clean(prev.text), text);
  }
  // The largest heading on the cover, when it is not just "Brand guidelines".
  const firstPage = lines.filter((l) => l.page === 1);
  const cover = firstPage.length <= 8 ? firstPage.filter((l) => l.level === 1) : [];
  const lowerText = text.toLowerCase();
  for (const line of cover) {
    const candidate = clean(titleParts(line.text.replace(GUIDE_PHRASE, ''))[0] ?? '');
    if (!nameLike(candidate) || candidate === candidate.toLowerCase()) continue;
    // A brand name recurs in the text; a cover slogan or section title usually does not.
    const lower = candidate.toLowerCase();
    const first = lowerText.indexOf(lower);
    if (first >= 0 && lowerText.includes(lower, first + lower.length)) return preferredCase(candidate, text);
  }
  const domainLabel = website ? /^(?:https?:\/\/)?(?:www\.)?([^./]+)\./i.exec(website)?.[1] : undefined;
  // A proper noun the text keeps repeating (never in lower case, at least once mid-sentence) names the brand.
  const counts = new Map<string, { all: number; mid: number }>();
  const tokens = text.split(/\s+/);
  tokens.forEach((token, i) => {
    const word = /^["“‘(]?(\p{Lu}[\p{Ll}\d][\p{L}\d]*)(?:['’]s)?[.,;:!?"”’)]*$/u.exec(token)?.[1];
    // Past MAX_NAME_LENGTH a word is no name, and too long a pattern for neverLower's search.
    if (!word || word.length < 3 || word.length > MAX_NAME_LENGTH) return;
    const entry = counts.get(word) ?? { all: 0, mid: 0 };
    entry.all++;
    if (/^\p{Ll}[\p{Ll}-]*,?$/u.test(tokens[i - 1] ?? '')) entry.mid++;
    counts.set(word, entry);
  });
  // Whether the text never writes the word in lower case. Its runs of letters are collected once: a
  // search of the whole text for each word took the square of the text (7.6 s for a 126 KB DOCX of
  // 20,000 such words). A word with digits is still searched for, at most 50 of them (the rest are
  // taken for no name: names seldom hold digits).
  const letterRuns = new Set(text.match(/\p{L}+/gu));
  let searches = 0;
  const neverLower = (word: string) => {
    const lower = word.toLowerCase();
    if (/^\p{L}+$/u.test(lower)) return !letterRuns.has(lower);
    return ++searches <= 50 && !new RegExp(`(?<![\\p{L}])${lower}(?![\\p{L}])`, 'u').test(text);
  };
  const frequent = [...counts.entries()]
    .filter(([, c]) => c.all >= 4 && c.mid >= 1)
    .sort((a, b) => b[1].all - a[1].all)
    .filter(([word]) => neverLower(word))
    .map(([word, c]) => [word, c.all] as const);
  if (domainLabel) {
    const match = frequent.find(([word]) => word.toLowerCase() === domainLabel.toLowerCase());
    if (match) return match[0];
    if (lowerText.includes(domainLabel.toLowerCase()) && domainLabel.length >= 3)
      return domainLabel.charAt(0).toUpperCase() + domainLabel.slice(1);
  }
  const [top, runnerUp] = frequent;
  if (top && (!runnerUp || top[1] >= 1.5 * runnerUp[1])) return top[0];
  // Metadata titles are often file names ("brand-guide", "Logo_Final"); only a spaced title names the brand.
  const title = doc.title?.replace(/\s+/g, ' ').slice(0, MAX_TITLE);
  if (title && /\s/.test(title)) {
    const stripped = title.replace(GUIDE_PHRASE, ' ').replace(/\b(19|20)\d\d\b|\bv?\d+(\.\d+)*\b/gi, ' ');
    const candidate = clean(titleParts(stripped).find((part) => part.trim()) ?? '');
    if (nameLike(candidate)) return preferredCase(candidate, text);
  }
  return null;
}

const SOCIAL_HOSTS: [string, RegExp][] = [
  ['x', /^(twitter\.com|x\.com)$/],
  ['instagram', /^(instagram\.com|instagr\.am)$/],
  ['linkedin', /^linkedin\.com$/],
  ['facebook', /^(facebook\.com|fb\.com|fb\.me)$/],
  ['tiktok', /^tiktok\.com$/],
  ['youtube', /^(youtube\.com|youtu\.be)$/],
  ['github', /^github\.com$/],
  ['discord', /^(discord\.gg|discord\.com|discordapp\.com)$/],
  ['telegram', /^(t\.me|telegram\.me)$/],
  ['medium', /^medium\.com$/],
  ['reddit', /^reddit\.com$/],
  ['pinterest', /^pinterest\.[a-z.]+$/],
  ['threads', /^threads\.(net|com)$/],
  ['bluesky', /^bsky\.app$/],
  ['mastodon', /^mastodon\.[a-z.]+$/],
  ['twitch', /^twitch\.tv$/],
  ['dribbble', /^dribbble\.com$/],
  ['behance', /^behance\.net$/],
  ['vimeo', /^vimeo\.com$/],
  ['snapchat', /^snapchat\.com$/],
  ['whatsapp', /^(wa\.me|whatsapp\.com)$/],
  ['farcaster', /^(warpcast\.com|farcaster\.xyz)$/],
];

/** Font foundries, tool vendors and reference sites a guideline links to; never the brand's own site. */
const VENDOR_HOSTS =
  /(^|\.)(google\.com|googleapis\.com|adobe\.com|typekit\.(com|net)|figma\.com|canva\.com|pantone\.com|myfonts\.com|fonts\.com|fontshare\.com|fontsquirrel\.com|dafont\.com|linotype\.com|monotype\.com|klim\.co\.nz|commercialtype\.com|grillitype\.com|pangrampangram\.com|vercel\.com|rsms\.me|jetbrains\.com|unsplash\.com|pexels\.com|shutterstock\.com|gettyimages\.com|istockphoto\.com|creativecommons\.org|w3\.org|apple\.com|microsoft\.com|wikipedia\.org|sketch\.com|invisionapp\.com|dropbox\.com|drive\.google\.com|bit\.ly|notion\.so|miro\.com|ilovepdf\.com|smallpdf\.com|colorhexa\.com|coolors\.co|material\.io|fonts\.adobe\.com|fontspring\.com|behance\.net|dribbble\.com|example\.(com|org))$/i;

// With its scheme, any top-level domain (`https://acme.pt`); without, only these, so that a file name
// (`logo.svg`) or an abbreviation is not taken for a site.
const URL_IN_TEXT =
  /(?<![@\w.-])(?:https?:\/\/(?:www\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9-]+)*\.[a-z]{2,}|(?:www\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9-]+)*\.(?:com|io|org|net|co|ai|dev|app|xyz|finance|fi|de|uk|fr|es|it|nl|eu|me|gg|tv|us|ca|au|ch|at|be|se|no|dk|pl|in|jp|tech|design|studio|agency|so|sh|ly|to|cc|info|biz))(?![\w-])(?:\/[^\s)>\]"'“”,]*)?/gi;

/** Longer addresses are not read: no brand's site needs more (browsers and search engines stop near it). */
const MAX_URL = 2048;
const URL_END_PUNCTUATION = new Set('.,;:');

function parseUrl(raw: string): URL | null {
  // Sentence punctuation after an address (a pattern anchored at the end took 81 s for an address
  // ending in 320,000 dots).
  const trimmed = trimEdges(raw, (c) => URL_END_PUNCTUATION.has(c), 'end');
  if (trimmed.length > MAX_URL) return null;
  if (/^mailto:|^tel:/i.test(trimmed)) return null;
  try {
    const url = new URL(/^https?:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

const hostOf = (url: URL) => url.hostname.toLowerCase().replace(/^(www|m|mobile)\./, '');

function handleOf(network: string, url: URL): string | null {
  const parts = url.pathname.split('/').filter(Boolean);
  if (network === 'linkedin')
    return parts[0] === 'company' || parts[0] === 'in' || parts[0] === 'school' ? (parts[1] ?? null) : null;
  if (network === 'youtube') {
    if (parts[0]?.startsWith('@')) return parts[0].slice(1);
    if ((parts[0] === 'c' || parts[0] === 'user') && parts[1]) return parts[1];
    return null;
  }
  if (network === 'discord' || network === 'whatsapp') return null;
  const first = parts[0];
  if (!first || /^(share|intent|watch|playlist|hashtag|p|status|home|search)$/i.test(first)) return null;
  return first.replace(/^@/, '');
}

export interface LinkFindings {
  website: string | null;
  socialLinks: Record<string, string> | null;
  socialProfiles: Record<string, string> | null;
}

export function findLinks(
  doc: DocumentModel,
  text: string,
  knownFonts: string[],
  statedWebsite?: string,
): LinkFindings {
  const raw = [...doc.links, ...[...text.matchAll(URL_IN_TEXT)].map((m) => m[0])];
  const fontKeys = knownFonts.map((f) => f.toLowerCase().replace(/\s+/g, ''));
  const social = new Map<string, URL[]>();
  const sites: URL[] = [];
  for (const candidate of raw) {
    const url = parseUrl(candidate);
    if (!url) continue;
    const host = hostOf(url);
    if (VENDOR_HOSTS.test(host)) continue;
    // Links to a typeface's repository are the font's, not the brand's.
    const path = url.pathname.toLowerCase().replace(/[-_\s]/g, '');
    if (fontKeys.some((f) => f.length > 3 && path.includes(f))) continue;
    const network = SOCIAL_HOSTS.find(([, pattern]) => pattern.test(host))?.[0];
    if (!network) sites.push(url);
    else if (social.has(network)) social.get(network)!.push(url);
    else social.set(network, [url]);
  }
  const counts = new Map<string, number>();
  for (const site of sites) counts.set(hostOf(site), (counts.get(hostOf(site)) ?? 0) + 1);
  // Handles shared across networks point at the brand's own accounts.
  const handles = new Set(
    [...social.entries()].flatMap(([n, urls]) => urls.map((u) => handleOf(n, u)?.toLowerCase())),
  );
  const siteScore = (u: URL) =>
    (counts.get(hostOf(u)) ?? 0) + (handles.has(hostOf(u).split('.')[0]) ? 5 : 0) - u.pathname.length / 100;
  // A "Website:" line names the site, whatever its domain: a vendor's own guidelines state theirs.
  // Only an address does ("Website: coming soon" names none).
  const address = statedWebsite ? parseUrl(statedWebsite.split(/\s+/)[0]!) : null;
  const stated = address && /\.\p{L}{2,}$/u.test(address.hostname) ? address : null;
  const best = stated ?? [...sites].sort((a, b) => siteScore(b) - siteScore(a))[0];
  const website = best ? (best.pathname === '/' && !best.search ? best.origin : best.href) : null;

  const socialLinks: Record<string, string> = {};
  const socialProfiles: Record<string, string> = {};
  for (const [network, urls] of social) {
    const url = urls[0]!;
    socialLinks[network] = url.href;
    const handle = handleOf(network, url);
    if (handle) socialProfiles[network] = handle;
  }
  return {
    website,
    socialLinks: Object.keys(socialLinks).length ? socialLinks : null,
    socialProfiles: Object.keys(socialProfiles).length ? socialProfiles : null,
  };
}

export interface WordFindings {
  name: string | null;
  tagline: string | null;
  mission_statement: string | null;
  brand_voice: string | null;
  tone_keywords: string[];
  target_audience: string | null;
  imagery_style: string | null;
  industry: string | null;
  location: string | null;
  competitors: string[];
  seo_keywords: string[];
  content_pillars: string[];
  wordmark_mentioned: boolean;
}

export function documentText(lines: TextLine[]): string {
  const pages = new Map<number, TextLine[]>();
  for (const line of lines) {
    const page = pages.get(line.page);
    if (page) page.push(line);
    else pages.set(line.page, [line]);
  }
  return [...pages.values()]
    .map((pageLines) =>
      joinLines(
        pageLines.map((l) => ({
          ...l,
          // A heading, or a "Label: value" line, ends where it ends: not run into the next line.
          text: /[.!?:]$/.test(l.text) || (l.level === 0 && !LABEL_LINE.test(l.text)) ? l.text : `${l.text}.`,
        })),
      ),
    )
    .join('\n');
}

/** `content` is the document's lines without running headers and footers. */
export function findWords(
  doc: DocumentModel,
  content: TextLine[],
  text: string,
  website: string | null,
  labelled: Section[],
): WordFindings {
  const all = [...sections(content), ...labelled];
  const sectionText = (field: TextField, count: number) => {
    const section = fieldSection(all, field);
    return section ? firstSentences(joinLines(section.body), count) : null;
  };
  const name = brandName(doc, text, website, labelled);
  const taglineSection = fieldSection(all, 'tagline');
  const tagline = taglineSection
    ? stripQuotes(sentences(joinLines(taglineSection.body))[0] ?? '') || null
    : coverTagline(content, name);
  const toneSection = fieldSection(all, 'tone_keywords');
  const location =
    sectionText('location', 1) ??
    /\b(?:based|headquartered|located) in ((?:\p{Lu}[\p{L}-]+)(?:,? (?:\p{Lu}[\p{L}-]+))*)/u.exec(
      text,
    )?.[1] ??
    null;
  const audience =
    sectionText('target_audience', 2) ??
    /\bour (?:target )?audiences? (?:is|are|includes?) ([^.]{3,160})\./i.exec(text)?.[1] ??
    null;
  const list = (field: ListField) => {
    const section = fieldSection(all, field);
    return section ? listItems(section.body) : [];
  };
  return {
    name,
    tagline,
    mission_statement: missionStatement(text, fieldSection(all, 'mission_statement')),
    brand_voice: sectionText('brand_voice', 2),
    tone_keywords: toneKeywords(text, toneSection),
    target_audience: audience,
    imagery_style: sectionText('imagery_style', 2),
    industry: sectionText('industry', 1),
    location,
    competitors: list('competitors'),
    seo_keywords: list('seo_keywords'),
    content_pillars: list('content_pillars'),
    wordmark_mentioned: /\b(wordmark|logotype|word mark|schriftzug)\b/i.test(text),
  };
}
