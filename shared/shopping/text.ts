// Tokenisation shared by the search index, the feed importer and the offline evaluation, so a
// query and a product title are always cut the same way.

// Letters that NFKD does not decompose but shoppers type without the diacritic.
const FOLD: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};
const FOLD_RE = /[ßæœøłđðþı]/g;
// Accents shoppers leave out: the combining diacritics of Latin, Greek and Cyrillic, Hebrew points
// and Arabic harakat. Not every mark: a Japanese voicing mark (バ is not ハ, バッグ "bag" is not
// パック "pack") or an Indic vowel sign is part of the letter, not an accent on it.
const ACCENTS_RE =
  /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0610-\u061a\u064b-\u065f\u0670]+/g;
const NON_ASCII_RE = /[\u0080-\uffff]/;
// Marks NFKD would spell out as letters glued to the word they follow ("Acme™" would be `acmetm`, not
// found by "acme"); as the symbols they are (like ® and ©), they separate words.
const WORD_MARKS_RE = /[\u2120\u2122]/g; // ℠ ™

// Invisible hints inside a word, none of them a break: a soft hyphen (where a word may break), the
// zero-width joiner and non-joiner (how letters join: Persian writes کتاب‌ها with one, or without),
// the word joiner and the BOM (no break here). Feed texts drop soft hyphens as they are read; a query
// pasted from a page that hyphenates ("Schnür\u00adsenkel") must not be cut at any of them either.
const INVISIBLE_IN_WORD_RE = /\u00ad|\u200c|\u200d|\u2060|\ufeff/g;

// Letters of Thai and Lao that NFKD spells out in two (ำ as ํ + า) and NFC does not put back: the word
// dictionaries know them whole (ดำ "black", น้ำ "water"; Lao ໝ, which ຫມ also spells, is one too).
const UNSPACED_COMPAT: Record<string, string> = {
  '\u0e4d\u0e32': '\u0e33',
  '\u0ecd\u0eb2': '\u0eb3',
  '\u0eab\u0e99': '\u0edc',
  '\u0eab\u0ea1': '\u0edd',
};
const UNSPACED_COMPAT_RE = new RegExp(Object.keys(UNSPACED_COMPAT).join('|'), 'g');

/** Lower-case, strip accents. Only pays for Unicode normalisation when the text needs it. */
export const foldText = (text: string): string => {
  const lower = text.toLowerCase();
  if (!NON_ASCII_RE.test(lower)) return lower;
  return (
    lower
      .replace(INVISIBLE_IN_WORD_RE, '')
      .replace(WORD_MARKS_RE, ' ')
      .normalize('NFKD')
      // Compatibility forms may decompose to capitals (Ⅻ is XII, ℃ is °C).
      .toLowerCase()
      .replace(ACCENTS_RE, '')
      .replace(FOLD_RE, (ch) => FOLD[ch] ?? ch)
      // Recomposes what NFKD took apart and no accent was stripped from (ド, Hangul syllables).
      .normalize('NFC')
      .replace(UNSPACED_COMPAT_RE, (pair) => UNSPACED_COMPAT[pair] ?? pair)
  );
};

// Chinese and Japanese are written without spaces (Korean compounds too): a run of these scripts is
// cut into overlapping pairs of characters, so 耳机 "earphones" is found in 蓝牙耳机 "Bluetooth
// earphones" (as Lucene's CJK analyzer does). A lone character stays a word of its own.
const CJK = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\u30fc';
// Thai, Lao, Khmer and Myanmar are written without spaces between words too, but a word is several
// characters with marks: ICU's dictionaries cut a run into words (กาแฟคั่วบด "ground roasted coffee"
// → กาแฟ คั่ว บด, so กาแฟ "coffee" finds it), as Lucene's Thai analyzer does. The index and the
// queries of a catalogue are cut in one process, so by the same dictionary.
const UNSPACED = '\\p{sc=Thai}\\p{sc=Lao}\\p{sc=Khmer}\\p{sc=Myanmar}';
const UNSPACED_TEST_RE = new RegExp(`[${CJK}${UNSPACED}]`, 'u');
const UNSPACED_SPLIT_RE = new RegExp(`[${CJK}]+|[${UNSPACED}]+|[^${CJK}${UNSPACED}]+`, 'gu');
const CJK_RUN_RE = new RegExp(`^[${CJK}]`, 'u');
const DICTIONARY_RUN_RE = new RegExp(`^[${UNSPACED}]`, 'u');
// A lone run: a text between two ASCII separators that is all one run of these scripts' letters, marks
// and digits (most of a Thai text: Thai puts a space between phrases, not between words). Folded, it is
// still one such run, so its words are its folded form's dictionary cut, and the rest of the Unicode
// path (matching words, joiners and scripts, which cost the benchmark's Thai catalogue 1.9 s against
// 65 ms of ICU) has nothing to find in it.
const LONE_RUN_RE = new RegExp(`^[[${UNSPACED}]&&[\\p{L}\\p{M}\\p{N}]]+$`, 'v');
let dictionaryWords: Intl.Segmenter | undefined;
// ICU's cut costs microseconds a call and grows with the square of the run (128,000 characters took
// 1.6 s), and a feed's description has no length limit: a longer run is cut in pieces (a word at a
// seam may come out in two). Catalogues repeat their phrases, so short runs' cuts are kept: by the run
// as folded, and a lone run's by the run as written, which spares its folding too (the search
// benchmark's Thai catalogue, all lone runs, built in 2.2 s with the first map alone, 6 s with neither,
// 0.75 s with both). A lone run goes in the second map only: where phrases never repeat, a run kept
// twice cost more than it saved.
const DICTIONARY_PIECE = 1_000;
const KEPT_CUT_LENGTH = 200;
const KEPT_CUTS = 20_000;
const keptCuts = new Map<string, string[]>();
const keptLoneRuns = new Map<string, string[]>();

/** ICU's cut of a run, piece by piece. */
const dictionaryWordsOf = (run: string): string[] => {
  // The dictionary picks itself by script, whatever the locale.
  dictionaryWords ??= new Intl.Segmenter('th', { granularity: 'word' });
  const words: string[] = [];
  for (let start = 0; start < run.length; ) {
    let end = Math.min(start + DICTIONARY_PIECE, run.length);
    if (end < run.length && /[\ud800-\udbff]/.test(run[end - 1]!)) end--; // not inside a surrogate pair
    for (const piece of dictionaryWords.segment(run.slice(start, end)))
      if (piece.isWordLike) words.push(piece.segment);
    start = end;
  }
  return words;
};

/** The words `cut` gives for `text`, kept in `kept` when the text is short. */
const keptWords = (kept: Map<string, string[]>, text: string, cut: (text: string) => string[]): string[] => {
  let words = kept.get(text);
  if (words === undefined) {
    words = cut(text);
    if (text.length <= KEPT_CUT_LENGTH) {
      if (kept.size >= KEPT_CUTS) kept.clear();
      kept.set(text, words);
    }
  }
  return words;
};

/** A folded run's dictionary words. */
const dictionaryCut = (run: string): string[] => keptWords(keptCuts, run, dictionaryWordsOf);

/** A lone run's dictionary words (LONE_RUN_RE), from the run as written. */
const loneRunCut = (lone: string): string[] =>
  keptWords(keptLoneRuns, lone, (written) => dictionaryWordsOf(foldText(written)));

/** A folded word as index words: itself, for CJK runs their character pairs, for Thai, Lao, Khmer
 * and Myanmar runs their dictionary words. */
const unspacedWords = (word: string, emit: (word: string) => void): void => {
  if (!UNSPACED_TEST_RE.test(word)) {
    emit(word);
    return;
  }
  for (const [segment] of word.matchAll(UNSPACED_SPLIT_RE)) {
    if (DICTIONARY_RUN_RE.test(segment)) {
      for (const cut of dictionaryCut(segment)) emit(cut);
      continue;
    }
    if (!CJK_RUN_RE.test(segment)) {
      emit(segment);
      continue;
    }
    const chars = Array.from(segment);
    if (chars.length === 1) emit(segment);
    for (let i = 0; i + 1 < chars.length; i++) emit(chars[i]! + chars[i + 1]!);
  }
};

// Words that carry no product meaning; queries such as "a pair of shoes for the beach" are full of
// them. "s" and "t" are the debris of "men's" and "don't" after splitting on the apostrophe.
// Held in stemmed form because tokens are compared after stemming ("does" -> "doe"). Not "can" or
// "down": in a shop they are things (trash can, can opener, down jacket, down comforter).
const STOP_WORD_LIST = (
  'a an and are as at be but by for from has have i in into is it its me my of off on or our ' +
  's so t than that the their them then there these they this those to too very was we were what ' +
  'when where which who with without you your will just some any all also more most such ' +
  'about over under only own same both each few other nor not no do does did doing having been ' +
  'being am if because until while against between through during before after above below up ' +
  'out again further once here why how he him his she her hers itself ours yours ' +
  'looking want need buy find show get'
).split(' ');

/**
 * Plurals the suffix rules below get wrong, with the singular they mean (and singulars ending in
 * "s" that are not plurals). Products, not the whole language: knives, shelves, mice, lenses.
 */
const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['knives', 'knife'],
  ['wives', 'wife'],
  ['shelves', 'shelf'],
  ['scarves', 'scarf'],
  ['leaves', 'leaf'],
  ['halves', 'half'],
  ['loaves', 'loaf'],
  ['wolves', 'wolf'],
  ['calves', 'calf'],
  ['hooves', 'hoof'],
  ['thieves', 'thief'],
  ['mice', 'mouse'],
  ['geese', 'goose'],
  ['feet', 'foot'],
  ['teeth', 'tooth'],
  ['children', 'child'],
  ['lens', 'lens'],
  ['lenses', 'lens'],
  ['canvas', 'canvas'],
  ['canvases', 'canvas'],
  ['atlas', 'atlas'],
  ['atlases', 'atlas'],
  ['buses', 'bus'],
  ['gases', 'gas'],
  // -oes plurals of -o words (shoes, toes and canoes keep their e).
  ['potatoes', 'potato'],
  ['tomatoes', 'tomato'],
  ['mangoes', 'mango'],
  ['heroes', 'hero'],
  ['superheroes', 'superhero'],
  ['dominoes', 'domino'],
  ['echoes', 'echo'],
  ['mosquitoes', 'mosquito'],
  ['volcanoes', 'volcano'],
  ['tornadoes', 'tornado'],
  ['torpedoes', 'torpedo'],
  // -is plurals of -i words (tennis, chassis and trellis are singular).
  ['skis', 'ski'],
  ['bikinis', 'bikini'],
  ['tankinis', 'tankini'],
  ['khakis', 'khaki'],
  ['saris', 'sari'],
  ['kiwis', 'kiwi'],
  ['taxis', 'taxi'],
  // -es after ch/x where the singular keeps its e.
  ['axes', 'axe'],
  ['quiches', 'quiche'],
  ['moustaches', 'moustache'],
  ['mustaches', 'mustache'],
]);

/**
 * Light English stemming: plurals and possessives only. Wider suffix stripping (-ing, -ed) was left
 * out on purpose: it merges product words that shoppers keep apart (bedding/bed, earrings/ear).
 */
export const stem = (word: string): string => {
  const n = word.length;
  if (n <= 3) return word;
  const irregular = IRREGULAR.get(word);
  if (irregular !== undefined) return irregular;
  const last = word.charCodeAt(n - 1);
  if (last !== 115 /* s */) {
    // -ie nouns meet their -ies plurals at -y: hoodie and hoodies are both "hoody".
    return n > 4 && word.endsWith('ie') ? `${word.slice(0, -2)}y` : word;
  }
  if (word.endsWith('ies') && n > 4) return word.slice(0, -3) + 'y';
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('xes') || word.endsWith('ches') || word.endsWith('shes') || word.endsWith('zzes')) {
    return word.slice(0, -2);
  }
  return word.slice(0, -1);
};

export const STOP_WORDS: ReadonlySet<string> = new Set(STOP_WORD_LIST.map((w) => stem(w)));

/** A lower-case ASCII letter or a digit. */
const isAsciiWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);

/** A hyphen or an apostrophe: joins the words on either side into a compound. */
const isAsciiJoiner = (c: number): boolean => c === 45 /* - */ || c === 39; /* ' */

/** An ASCII character of lower-cased text that is neither a letter, a digit nor a joiner: no word
 * goes across it. */
const isAsciiSeparator = (c: number): boolean => c < 128 && !isAsciiJoiner(c) && !isAsciiWordChar(c);

/** A no-break space (U+00A0, or U+202F, the narrow one French sets between a number and its unit):
 * on either path it separates words as a space does. */
const isNoBreakSpace = (c: number): boolean => c === 0xa0 || c === 0x202f;

// Units a size is written with, with or without a space: a number and the unit after it are also
// emitted joined, so "750 ml" and "750ml" meet at one word (in a text and in a query alike; the query
// keeps the number and the unit too, which match a size written otherwise: 55" or "100 Watt").
// Measures only: counts ("2 pack", "pack of 2") are written in too many orders to join. As written,
// not converted: "1 litre" is 1litre.
const SIZE_UNITS: ReadonlySet<string> = new Set(
  'ml cl dl l oz g kg mg lb lbs cm mm m km inch ft gb tb mb w kw v mah hz khz mhz ghz'.split(' '),
);

/** Whether `text[start, end)` is all digits. */
const isNumber = (text: string, start: number, end: number): boolean => {
  for (let j = start; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c < 48 || c > 57) return false;
  }
  return true;
};

/** Whether the number at `start` is what follows a decimal point ("5" of "1.5", "1,5"). */
const isDecimalTail = (text: string, start: number): boolean => {
  const point = text.charCodeAt(start - 1);
  const digit = text.charCodeAt(start - 2);
  return (point === 46 || point === 44) && digit >= 48 && digit <= 57;
};

/** Whether `text[start, end)` is spaces only. */
const isSpaces = (text: string, start: number, end: number): boolean => {
  for (let j = start; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c !== 32 && !isNoBreakSpace(c)) return false;
  }
  return true;
};

/** Receives a word as a span of `source`, with its hash. */
type EmitWord = (source: string, start: number, end: number, hash: number) => void;

/** FNV-1a step over one UTF-16 code unit; `scanWords` hashes words as it reads them. */
const hashStep = (hash: number, code: number): number => Math.imul(hash ^ code, 0x01000193);
const HASH_SEED = 0x811c9dc5 | 0;

/**
 * Calls `emit` with every word of a text, lower-cased and accent-folded but not stemmed, as a span of
 * `source` (the lower-cased text, or a folded piece of it) with the word's hash: the index builder
 * looks words up by their characters in place, without slicing a string per word. Words joined by
 * hyphens or apostrophes are emitted one by one and then once more joined up ("wi-fi" → wi, fi, wifi;
 * "levi's" → levi, s, levis), so "wifi" finds "Wi-Fi", "tshirt" finds "T-Shirt" and "levis" finds
 * "Levi's" (or "Levi’s").
 */
export const scanWords = (text: string, emit: EmitWord): void => {
  if (!text) return;
  const lower = text.toLowerCase();
  const n = lower.length;
  // Hand-rolled scan for the common all-ASCII case: index builds spend most of their time here. The
  // hyphenated compound being read: where it starts, its hash without the hyphens, and how many of
  // its words were emitted (0 between compounds).
  let compoundStart = 0;
  let compoundHash = HASH_SEED;
  let compoundWords = 0;
  // The last word if it was a number standing alone (-1: it was not), which a unit may follow.
  let numberStart = -1;
  let numberEnd = -1;
  let numberHash = HASH_SEED;
  let i = 0;
  while (i < n) {
    let c = lower.charCodeAt(i);
    if (isAsciiWordChar(c)) {
      const start = i;
      let hash = HASH_SEED;
      if (compoundWords === 0) {
        // Perhaps the first word of a compound, whose hash is then the word's.
        do {
          hash = hashStep(hash, c);
          c = ++i < n ? lower.charCodeAt(i) : 0;
        } while (isAsciiWordChar(c));
        compoundStart = start;
        compoundHash = hash;
      } else {
        // A later word of a compound: the compound's hash goes on over it.
        do {
          hash = hashStep(hash, c);
          compoundHash = hashStep(compoundHash, c);
          c = ++i < n ? lower.charCodeAt(i) : 0;
        } while (isAsciiWordChar(c));
      }
      if (c < 128 || isNoBreakSpace(c)) {
        emit(lower, start, i, hash);
        // The compound ends here unless a joiner joins a next word on.
        const next = i + 1 < n ? lower.charCodeAt(i + 1) : 0;
        const joinsOn = isAsciiJoiner(c) && (isAsciiWordChar(next) || (next >= 128 && !isNoBreakSpace(next)));
        const alone = compoundWords === 0 && !joinsOn;
        compoundWords++;
        if (!joinsOn) {
          if (compoundWords > 1) {
            const joined = lower.slice(compoundStart, i).replace(JOINERS_RE, '');
            emit(joined, 0, joined.length, compoundHash);
          }
          compoundWords = 0;
        }
        if (!alone) numberEnd = -1;
        else if (
          numberEnd >= 0 &&
          isSpaces(lower, numberEnd, start) &&
          SIZE_UNITS.has(lower.slice(start, i))
        ) {
          let sizeHash = numberHash;
          for (let j = start; j < i; j++) sizeHash = hashStep(sizeHash, lower.charCodeAt(j));
          const size = lower.slice(numberStart, numberEnd) + lower.slice(start, i);
          emit(size, 0, size.length, sizeHash);
          numberEnd = -1;
        } else if (
          isNumber(lower, start, i) &&
          !isDecimalTail(lower, start) &&
          // Not three digits after a number and a space: a group of thousands ("10 000 mAh", whose
          // "000mah" every such battery would share).
          !(i - start === 3 && numberEnd >= 0 && isSpaces(lower, numberEnd, start))
        ) {
          numberStart = start;
          numberEnd = i;
          numberHash = hash;
        } else numberEnd = -1;
        i++;
        continue;
      }
      // A non-ASCII character inside the word.
    } else if (c < 128 || isNoBreakSpace(c)) {
      i++; // a separator, never inside a compound
      continue;
    } else if (compoundWords === 0) {
      compoundStart = i;
    }
    numberEnd = -1;
    // The Unicode path takes the current compound (skipping its words already emitted) up to the
    // next ASCII separator, which ends every word on either path; the ASCII scan resumes there. A
    // "Velocé" or a "™" then costs its own word, not the rest of the text.
    let end = i + 1;
    while (end < n && !isAsciiSeparator(lower.charCodeAt(end)) && !isNoBreakSpace(lower.charCodeAt(end)))
      end++;
    const piece = lower.slice(compoundStart, end);
    if (LONE_RUN_RE.test(piece)) for (const word of loneRunCut(piece)) emitWord(word, emit);
    else unicodeWords(piece, compoundWords, emit);
    compoundWords = 0;
    i = end + 1; // the separator, if any, begins no word
  }
};

// Hyphens (- ‐) and apostrophes (' ’) join words into a compound.
const WORD_RE = /[\p{L}\p{N}\p{M}]+(?:[-\u2010'\u2019][\p{L}\p{N}\p{M}]+)*/gu;
const JOINER_RE = /[-\u2010'\u2019]/;
const JOINERS_RE = /[-\u2010'\u2019]/g;

/** Emits a whole string as a word, with its hash. */
const emitWord = (word: string, emit: EmitWord): void => {
  let h = HASH_SEED;
  for (let j = 0; j < word.length; j++) h = hashStep(h, word.charCodeAt(j));
  emit(word, 0, word.length, h);
};

/** The Unicode path of scanWords over a piece of text, leaving out its first `skip` words (already emitted). */
const unicodeWords = (text: string, skip: number, emit: EmitWord): void => {
  const emitUnskipped = (word: string) => {
    if (skip > 0) skip--;
    else emitWord(word, emit);
  };
  for (const [compound] of foldText(text).matchAll(WORD_RE)) {
    const parts = compound.split(JOINER_RE);
    for (const part of parts) unspacedWords(part, emitUnskipped);
    if (parts.length > 1 && !UNSPACED_TEST_RE.test(compound)) emitUnskipped(parts.join(''));
  }
};

/** Every token of a text in order, stemmed, stop-words included (the index keeps them). */
export const tokenize = (text: string): string[] => {
  const out: string[] = [];
  scanWords(text, (source, start, end) => out.push(stem(source.slice(start, end))));
  return out;
};

/**
 * Query terms: tokens without stop-words, unless the query is nothing but stop-words (then all of
 * them, so "the who" still finds something). Order kept, duplicates removed.
 */
export const queryTerms = (query: string): string[] => {
  const tokens = tokenize(query);
  const content = tokens.filter((t) => !STOP_WORDS.has(t));
  return [...new Set(content.length > 0 ? content : tokens)];
};
