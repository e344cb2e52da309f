// Typo tolerance. A query word the catalogue does not hold is read as the catalogue's commonest word
// one edit away (a letter wrong, missing or extra, or two neighbours swapped): shoppers mistype
// ("snekers", "headphnes") and got nothing for the word. A word the catalogue holds is never changed.
// Only plain letters a–z (accents are folded before), and words of at least MIN_CORRECTED_LENGTH of
// them (stemmed): a shorter word is often a real one the catalogue lacks, one letter from another it
// holds ("canon" is a canoe, "cable" a table, "shorts" shirts, "razer" a razor), and one with digits is
// a size or a model ("250ml" is one digit from "750ml"). A longer real word can still be misread so
// ("jacket" in a shop of rackets): at half a word's weight, the words as typed rank first. Written here rather than taken
// from a library: the catalogue's own words are the dictionary, scanned where a correction may lie
// (below), with no index of misspellings to keep.

import { STOP_WORDS } from './text.ts';

/** The fewest letters of a word that is corrected. */
export const MIN_CORRECTED_LENGTH = 6;

const LETTERS = /^[a-z]+$/;

/** Whether `a` from `ai` on and `b` from `bi` on are the same characters. */
const sameFrom = (a: string, ai: number, b: string, bi: number): boolean => {
  if (a.length - ai !== b.length - bi) return false;
  for (; ai < a.length; ai++, bi++) if (a.charCodeAt(ai) !== b.charCodeAt(bi)) return false;
  return true;
};

/** Whether two different words are one edit apart: a letter substituted, inserted or deleted, or
 * two neighbours swapped (optimal string alignment distance 1). */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (a.length > b.length) return sameFrom(a, i + 1, b, i);
  if (a.length < b.length) return sameFrom(a, i, b, i + 1);
  return (
    sameFrom(a, i + 1, b, i + 1) ||
    (a.charCodeAt(i) === b.charCodeAt(i + 1) &&
      a.charCodeAt(i + 1) === b.charCodeAt(i) &&
      sameFrom(a, i + 2, b, i + 2))
  );
}

/**
 * The catalogue's correction of a word it does not hold: the term id of its commonest word one edit
 * away (ties by the word), never a stop-word, or undefined. `terms` are the catalogue's (stemmed)
 * words and their ids, `frequency` a word's number of products.
 */
export function spellingCorrector(
  terms: ReadonlyMap<string, number>,
  frequency: (id: number) => number,
): (word: string) => number | undefined {
  // Words one edit apart share their first letter or their last (a single edit cannot reach both
  // ends of a word of MIN_CORRECTED_LENGTH - 1 letters or more), so the words are kept by length and
  // first letter and by length and last: a word is compared with a fraction of each of three lengths.
  let byEnd: Map<string, [string, number][]> | undefined;
  const endKeys = (word: string, length = word.length) => [
    `${length}<${word[0]}`,
    `${length}>${word.at(-1)}`,
  ];
  const wordsByEnd = () => {
    byEnd = new Map();
    for (const [word, id] of terms) {
      if (word.length < MIN_CORRECTED_LENGTH - 1 || !LETTERS.test(word) || STOP_WORDS.has(word)) continue;
      for (const key of endKeys(word)) {
        const bucket = byEnd.get(key);
        if (bucket) bucket.push([word, id]);
        else byEnd.set(key, [[word, id]]);
      }
    }
    return byEnd;
  };
  return (word) => {
    if (word.length < MIN_CORRECTED_LENGTH || !LETTERS.test(word)) return undefined;
    const buckets = byEnd ?? wordsByEnd();
    let best: { word: string; id: number; count: number } | undefined;
    for (let length = word.length - 1; length <= word.length + 1; length++)
      for (const [candidate, id] of endKeys(word, length).flatMap((key) => buckets.get(key) ?? [])) {
        if (!oneEditApart(word, candidate)) continue;
        const count = frequency(id);
        if (!best || count > best.count || (count === best.count && candidate < best.word))
          best = { word: candidate, id, count };
      }
    return best?.id;
  };
}
