// In-memory product search: BM25F over title, brand, product type/category and description, plus a
// title-bigram field that rewards the query's words appearing side by side ("coffee table").
//
// Layout: one term dictionary and CSR postings (term offsets → ascending doc numbers and a
// precomputed per-posting weight in typed arrays). Because BM25F's saturated term frequency depends
// only on (term, doc), it is computed once at build time; a query is then a few array walks plus a
// bounded min-heap for the top k.
//
// Variants (products sharing an item_group_id within one merchant) answer as one result: the
// best-scoring variant that passes the filters stands for its group. Products without a group are
// their own group and take the direct path to the heap.
import type { CatalogProduct, MerchantType } from './catalog.ts';
import { MERCHANT_TYPES } from './catalog.ts';
import { spellingCorrector } from './spelling.ts';
import { queryTerms, STOP_WORDS, scanWords, stem } from './text.ts';

export interface FieldSpec {
  name: string;
  /** Text of this field for a product. */
  text: (p: CatalogProduct) => string;
  weight: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  b: number;
}

export interface IndexOptions {
  fields: readonly FieldSpec[];
  k1: number;
  /** Weight of the title-bigram field; 0 turns bigrams off. */
  bigramWeight: number;
  /**
   * How much matching more of the query's terms counts beyond BM25's sum: the score is multiplied by
   * (1 + c · matched/terms) / (1 + c). 0 is plain BM25F.
   */
  coordination: number;
}

const categoryText = (p: CatalogProduct): string => {
  // Bare Google taxonomy ids ("2271") mean nothing to a shopper's query.
  const category = /^\d+$/.test(p.category) ? '' : p.category;
  return p.product_type && category ? `${p.product_type} ${category}` : p.product_type || category;
};

export const DEFAULT_FIELDS: readonly FieldSpec[] = [
  { name: 'title', text: (p) => p.title, weight: 3, b: 0.75 },
  { name: 'brand', text: (p) => p.brand, weight: 2, b: 0.3 },
  { name: 'category', text: categoryText, weight: 1.5, b: 0.5 },
  { name: 'description', text: (p) => p.description, weight: 1, b: 0.75 },
];

export const DEFAULT_INDEX_OPTIONS: IndexOptions = {
  fields: DEFAULT_FIELDS,
  k1: 1.2,
  bigramWeight: 1.5,
  coordination: 1,
};

/** Plain single-field BM25 (k1 1.2, b 0.75) over all text: the baseline the evaluation compares to. */
export const PLAIN_BM25_OPTIONS: IndexOptions = {
  fields: [
    {
      name: 'all',
      text: (p) => [p.title, p.brand, categoryText(p), p.description].join(' '),
      weight: 1,
      b: 0.75,
    },
  ],
  k1: 1.2,
  bigramWeight: 0,
  coordination: 0,
};

export interface SearchQuery {
  query: string;
  merchant_type?: MerchantType | null;
  /** Page size; defaults to 10. */
  max_results?: number;
  price_min_cents?: number | null;
  price_max_cents?: number | null;
}

export interface SearchHit extends CatalogProduct {
  score: number;
}

export interface SearchResponse {
  /** One per variant group: its best variant passing the filters. */
  results: SearchHit[];
  /** Groups with a variant matching after filters (a product without a group counts as one). */
  total_count: number;
}

export interface IndexStats {
  products: number;
  terms: number;
  postings: number;
  /** Bytes held by the typed arrays of the index (not the product objects). */
  typedArrayBytes: number;
}

export interface SearchIndex {
  readonly size: number;
  search(query: SearchQuery): SearchResponse;
  /**
   * Every match after filters with its score, in index order, every variant of a group apart (search
   * keeps the best of each). For evaluation and tests.
   */
  matchAll(query: SearchQuery): { product: CatalogProduct; score: number }[];
  stats(): IndexStats;
}

const MAX_QUERY_TERMS = 32;
/** What a corrected word counts for beside one the catalogue holds: a guess at what was meant. */
const CORRECTED_WEIGHT = 0.5;

/** Growable Int32Array: avoids millions of boxed JS numbers while the index is built. */
class IntList {
  length = 0;
  data = new Int32Array(1024);
  push(v: number) {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/**
 * Word → term id, looked up by the word's characters where they lie in the text (open addressing on
 * the hash `scanWords` computes as it reads): the build's inner loop neither slices nor hashes a new
 * string per word, which was most of a 40,000-product build. A word is stemmed once, on first sight.
 */
class WordTerms {
  private words: (string | undefined)[] = new Array(1 << 12);
  private hashes = new Int32Array(1 << 12);
  private ids = new Int32Array(1 << 12);
  private count = 0;

  constructor(private readonly termOfWord: (word: string) => number) {}

  idOf(source: string, start: number, end: number, hash: number): number {
    const mask = this.words.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const word = this.words[slot];
      if (word === undefined) break;
      if (this.hashes[slot] === hash && word.length === length && sameChars(word, source, start)) {
        return this.ids[slot]!;
      }
    }
    const word = source.slice(start, end);
    const id = this.termOfWord(word);
    if (++this.count * 2 > this.words.length) this.grow();
    this.insert(word, hash, id);
    return id;
  }

  private insert(word: string, hash: number, id: number): void {
    const mask = this.words.length - 1;
    let slot = hash & mask;
    while (this.words[slot] !== undefined) slot = (slot + 1) & mask;
    this.words[slot] = word;
    this.hashes[slot] = hash;
    this.ids[slot] = id;
  }

  private grow(): void {
    const { words, hashes, ids } = this;
    this.words = new Array(words.length * 2);
    this.hashes = new Int32Array(words.length * 2);
    this.ids = new Int32Array(words.length * 2);
    for (let slot = 0; slot < words.length; slot++) {
      if (words[slot] !== undefined) this.insert(words[slot]!, hashes[slot]!, ids[slot]!);
    }
  }
}

const sameChars = (word: string, source: string, start: number): boolean => {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) !== source.charCodeAt(start + i)) return false;
  return true;
};

/**
 * Tokenises and weights every product. Kept apart from buildIndex so its large temporaries die with
 * it: closures of one function share a context, and the query closures would otherwise pin them.
 */
const buildPostings = (products: readonly CatalogProduct[], opts: IndexOptions) => {
  const { fields, k1 } = opts;
  const n = products.length;
  const useBigrams = opts.bigramWeight > 0;
  const fieldCount = fields.length + (useBigrams ? 1 : 0);
  const weights = [...fields.map((f) => f.weight), opts.bigramWeight];
  const bs = [...fields.map((f) => f.b), 0.5];

  // Pass 1: tokenise every field into one stream of term ids, remembering field lengths.
  const dict = new Map<string, number>(); // stemmed token → term id
  const isStop: boolean[] = []; // by term id
  // Title bigrams by their two term ids (first → second → bigram term id); they share the id space.
  const bigrams = new Map<number, Map<number, number>>();
  let termCount = 0;
  const termOf = (token: string): number => {
    let id = dict.get(token);
    if (id === undefined) {
      id = termCount++;
      dict.set(token, id);
      isStop[id] = STOP_WORDS.has(token);
    }
    return id;
  };
  const bigramOf = (first: number, second: number): number => {
    let next = bigrams.get(first);
    if (next === undefined) {
      next = new Map();
      bigrams.set(first, next);
    }
    let id = next.get(second);
    if (id === undefined) {
      id = termCount++;
      next.set(second, id);
      isStop[id] = false;
    }
    return id;
  };
  const words = new WordTerms((word) => termOf(stem(word)));
  const stream = new IntList(); // per doc and field: term ids; field boundaries from lengths
  const emitInto = (list: IntList) => (source: string, start: number, end: number, hash: number) =>
    list.push(words.idOf(source, start, end, hash));
  const toStream = emitInto(stream);
  const lengths = new Float32Array(n * fieldCount);
  const totalLength = new Float64Array(fieldCount);
  const filled = new Float64Array(fieldCount);
  const endField = (d: number, f: number, start: number) => {
    const length = stream.length - start;
    lengths[d * fieldCount + f] = length;
    totalLength[f]! += length;
    if (length > 0) filled[f]! += 1;
  };
  // Brands and categories repeat across thousands of products: tokenise each distinct text once.
  const caches = fields.map(() => new Map<string, Int32Array>());
  const scratch = new IntList();
  const toScratch = emitInto(scratch);
  const docEnds = new Uint32Array(n); // where each doc's terms end in the stream
  for (let d = 0; d < n; d++) {
    const p = products[d]!;
    for (let f = 0; f < fields.length; f++) {
      const text = fields[f]!.text(p);
      const start = stream.length;
      // Short texts (brands, categories) are often shared; long ones (descriptions) rarely are.
      if ((f === 0 && useBigrams) || text.length > 80) {
        scanWords(text, toStream);
      } else {
        const cache = caches[f]!;
        let ids = cache.get(text);
        if (ids === undefined) {
          scratch.length = 0;
          scanWords(text, toScratch);
          ids = scratch.data.slice(0, scratch.length);
          cache.set(text, ids);
        }
        for (let i = 0; i < ids.length; i++) stream.push(ids[i]!);
      }
      endField(d, f, start);
      if (f === 0 && useBigrams) {
        // Title words without stop-words, paired with their neighbour: "pair of shoes" → "pair shoe".
        const bigramStart = stream.length;
        let previous = -1;
        for (let i = start; i < bigramStart; i++) {
          const t = stream.data[i]!;
          if (isStop[t]) continue;
          if (previous >= 0) stream.push(bigramOf(previous, t));
          previous = t;
        }
        endField(d, fields.length, bigramStart);
      }
    }
    docEnds[d] = stream.length;
  }
  // Averaged over products that have the field: most feeds leave brand or category empty on many
  // rows, and counting those would make every filled one look long and penalise it.
  const avgLength = Array.from(totalLength, (t, f) => (t > 0 ? t / filled[f]! : 1));

  // Document frequencies first, so pass 2 can write each posting straight to its place in the
  // term-grouped arrays (docs stay ascending within a term) instead of buffering and sorting them.
  const lastDoc = new Int32Array(termCount).fill(-1);
  const df = new Int32Array(termCount);
  for (let d = 0, i = 0; d < n; d++) {
    for (const end = docEnds[d]!; i < end; i++) {
      const t = stream.data[i]!;
      if (lastDoc[t] !== d) {
        lastDoc[t] = d;
        df[t]! += 1;
      }
    }
  }
  const offsets = new Uint32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) offsets[t + 1] = offsets[t]! + df[t]!;
  const total = offsets[termCount]!;
  const docs = new Uint32Array(total);
  const postingWeights = new Float32Array(total);
  const fill = offsets.slice(0, termCount);

  // Pass 2: per doc, per-field term frequencies → one saturated BM25F weight per (term, doc). Each
  // field's counts are added to its terms' sums as the field ends, in stream order; a bigram term is
  // in no other field, so every sum still adds a term's fields in field order (the same float).
  const counts = new Int32Array(termCount); // in the current field
  const pseudo = new Float64Array(termCount); // field-weighted frequency in the current doc
  const fieldTerms = new Int32Array(termCount);
  const docTerms = new Int32Array(termCount);
  lastDoc.fill(-1);
  let cursor = 0;
  // Field order in the stream: title, (bigrams), brand, category, description.
  const streamOrder = useBigrams
    ? [0, fields.length, ...fields.slice(1).map((_, i) => i + 1)]
    : fields.map((_, i) => i);
  for (let d = 0; d < n; d++) {
    let docTermCount = 0;
    for (const f of streamOrder) {
      const len = lengths[d * fieldCount + f]!;
      if (len === 0) continue;
      let fieldTermCount = 0;
      for (let i = 0; i < len; i++) {
        const t = stream.data[cursor++]!;
        if (counts[t]!++ > 0) continue;
        fieldTerms[fieldTermCount++] = t;
        if (lastDoc[t] !== d) {
          lastDoc[t] = d;
          docTerms[docTermCount++] = t;
          pseudo[t] = 0;
        }
      }
      const norm = 1 - bs[f]! + (bs[f]! * len) / avgLength[f]!;
      for (let j = 0; j < fieldTermCount; j++) {
        const t = fieldTerms[j]!;
        pseudo[t]! += (weights[f]! * counts[t]!) / norm;
        counts[t] = 0;
      }
    }
    for (let j = 0; j < docTermCount; j++) {
      const t = docTerms[j]!;
      const at = fill[t]!++;
      docs[at] = d;
      postingWeights[at] = pseudo[t]! / (k1 + pseudo[t]!);
    }
  }
  const idf = new Float64Array(termCount);
  for (let t = 0; t < termCount; t++) idf[t] = Math.log(1 + (n - df[t]! + 0.5) / (df[t]! + 0.5));

  return { dict, bigrams, offsets, docs, postingWeights, idf, termCount, total };
};

export const buildIndex = (
  input: readonly CatalogProduct[],
  options: Partial<IndexOptions> = {},
): SearchIndex => {
  const opts: IndexOptions = { ...DEFAULT_INDEX_OPTIONS, ...options };

  // Doc numbers follow id order, so "lower doc number" is the deterministic tie-break.
  const products = [...input].sort((a, b) =>
    a.id < b.id
      ? -1
      : a.id > b.id
        ? 1
        : a.merchant_domain < b.merchant_domain
          ? -1
          : a.merchant_domain > b.merchant_domain
            ? 1
            : 0,
  );
  const n = products.length;

  const { dict, bigrams, offsets, docs, postingWeights, idf, termCount, total } = buildPostings(
    products,
    opts,
  );
  const useBigrams = opts.bigramWeight > 0;
  const correct = spellingCorrector(dict, (t) => offsets[t + 1]! - offsets[t]!);

  // Filter columns, and each doc's variant group (-1: none, the product is its own group).
  const merchantCode = new Uint8Array(n);
  const price = new Float64Array(n);
  const groupOf = new Int32Array(n);
  const groupNumbers = new Map<string, number>();
  for (let d = 0; d < n; d++) {
    const p = products[d]!;
    merchantCode[d] = MERCHANT_TYPES.indexOf(p.merchant_type);
    price[d] = p.price_cents;
    if (p.item_group_id === undefined) groupOf[d] = -1;
    else {
      // A group id is the merchant's own: two merchants' "shirt-1" are two products.
      const key = `${p.merchant}\n${p.item_group_id}`;
      let g = groupNumbers.get(key);
      if (g === undefined) {
        g = groupNumbers.size;
        groupNumbers.set(key, g);
      }
      groupOf[d] = g;
    }
  }
  const groupCount = groupNumbers.size;
  groupNumbers.clear();

  // Query scratch, reused: a Lambda container serves one request at a time and search is synchronous.
  const scores = new Float64Array(n);
  const matched = new Uint8Array(n);
  const touched = new Uint32Array(n);
  // Per group while a query runs: its best passing variant so far (-1: none yet) and that score.
  const groupBest = new Int32Array(groupCount).fill(-1);
  const groupScore = new Float64Array(groupCount);
  const groupsSeen = new Uint32Array(groupCount);

  /** Scores every matching doc; calls `visit` for each one passing the filters. Returns nothing. */
  const run = (q: SearchQuery, visit: (doc: number, score: number) => void): void => {
    // Capped: longer queries add latency, not precision.
    const terms = queryTerms(q.query).slice(0, MAX_QUERY_TERMS);
    // By position, unknown terms undefined: the bigram pass below pairs neighbours. A word the
    // catalogue does not hold stands for its correction, if any (once: "sneakers snekers" is one word).
    const ids = terms.map((term) => dict.get(term));
    const weights = ids.map(() => 1);
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] !== undefined) continue;
      const fix = correct(terms[i]!);
      if (fix === undefined || ids.includes(fix)) continue;
      ids[i] = fix;
      weights[i] = CORRECTED_WEIGHT;
    }
    if (ids.every((id) => id === undefined)) return;
    let touchedCount = 0;
    for (let position = 0; position < ids.length; position++) {
      const t = ids[position];
      if (t === undefined) continue;
      const w = idf[t]! * weights[position]!;
      for (let i = offsets[t]!, end = offsets[t + 1]!; i < end; i++) {
        const d = docs[i]!;
        if (matched[d] === 0) touched[touchedCount++] = d;
        matched[d]! += 1;
        scores[d]! += w * postingWeights[i]!;
      }
    }
    if (useBigrams) {
      for (let i = 1; i < terms.length; i++) {
        const first = ids[i - 1];
        const second = ids[i];
        if (first === undefined || second === undefined) continue;
        const t = bigrams.get(first)?.get(second);
        if (t === undefined) continue;
        // A pair with a corrected word is a guess too.
        const w = idf[t]! * Math.min(weights[i - 1]!, weights[i]!);
        for (let j = offsets[t]!, end = offsets[t + 1]!; j < end; j++)
          scores[docs[j]!]! += w * postingWeights[j]!;
      }
    }
    // Terms unknown to the catalogue still count as unmatched in the coordination factor.
    const termTotal = terms.length;
    const c = opts.coordination;
    const wantType = q.merchant_type == null ? -1 : MERCHANT_TYPES.indexOf(q.merchant_type);
    const min = q.price_min_cents ?? Number.NEGATIVE_INFINITY;
    const max = q.price_max_cents ?? Number.POSITIVE_INFINITY;
    for (let i = 0; i < touchedCount; i++) {
      const d = touched[i]!;
      const raw = scores[d]!;
      const hits = matched[d]!;
      scores[d] = 0;
      matched[d] = 0;
      if (wantType !== -1 && merchantCode[d] !== wantType) continue;
      const p = price[d]!;
      if (p < min || p > max) continue;
      visit(d, c > 0 ? (raw * (1 + (c * hits) / termTotal)) / (1 + c) : raw);
    }
  };

  const search = (q: SearchQuery): SearchResponse => {
    const k = q.max_results ?? 10;
    if (!Number.isInteger(k) || k < 0) throw new RangeError('max_results must be a non-negative integer');
    const heap = new TopK(Math.min(k, n));
    let totalCount = 0;
    let seenCount = 0;
    run(q, (d, s) => {
      const g = groupOf[d]!;
      if (g < 0) {
        totalCount++;
        heap.offer(s, d);
        return;
      }
      const best = groupBest[g]!;
      if (best === -1) groupsSeen[seenCount++] = g;
      else if (s < groupScore[g]! || (s === groupScore[g]! && d > best)) return;
      groupBest[g] = d;
      groupScore[g] = s;
    });
    // Each group once, by its best variant: the same order as products, ties by the lower doc (id).
    for (let i = 0; i < seenCount; i++) {
      const g = groupsSeen[i]!;
      heap.offer(groupScore[g]!, groupBest[g]!);
      groupBest[g] = -1;
    }
    totalCount += seenCount;
    const results = heap.drain().map(({ doc, score }) => ({ ...products[doc]!, score }));
    return { results, total_count: totalCount };
  };

  const matchAll = (q: SearchQuery) => {
    const out: { doc: number; product: CatalogProduct; score: number }[] = [];
    run(q, (doc, score) => out.push({ doc, product: products[doc]!, score }));
    out.sort((a, b) => a.doc - b.doc);
    return out.map(({ product, score }) => ({ product, score }));
  };

  const typedArrayBytes =
    offsets.byteLength +
    docs.byteLength +
    postingWeights.byteLength +
    idf.byteLength +
    merchantCode.byteLength +
    price.byteLength +
    groupOf.byteLength +
    groupBest.byteLength +
    groupScore.byteLength +
    groupsSeen.byteLength +
    scores.byteLength +
    matched.byteLength +
    touched.byteLength;

  return {
    size: n,
    search,
    matchAll,
    stats: () => ({ products: n, terms: termCount, postings: total, typedArrayBytes }),
  };
};

/**
 * Bounded min-heap keeping the k best (score, doc) pairs: higher score first, then lower doc number.
 * The root is the worst kept entry, so a new candidate costs one comparison unless it gets in.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly docs: Int32Array;
  private count = 0;

  constructor(readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.docs = new Int32Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** True when entry a ranks below entry b. */
  private worse(sa: number, da: number, sb: number, db: number): boolean {
    return sa < sb || (sa === sb && da > db);
  }

  offer(score: number, doc: number): void {
    if (this.capacity === 0) return;
    if (this.count < this.capacity) {
      let i = this.count++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(score, doc, this.scores[parent]!, this.docs[parent]!)) break;
        this.scores[i] = this.scores[parent]!;
        this.docs[i] = this.docs[parent]!;
        i = parent;
      }
      this.scores[i] = score;
      this.docs[i] = doc;
      return;
    }
    if (!this.worse(this.scores[0]!, this.docs[0]!, score, doc)) return;
    this.siftDown(score, doc, this.count);
  }

  private siftDown(score: number, doc: number, size: number): void {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      let child = left;
      if (
        right < size &&
        this.worse(this.scores[right]!, this.docs[right]!, this.scores[left]!, this.docs[left]!)
      ) {
        child = right;
      }
      if (!this.worse(this.scores[child]!, this.docs[child]!, score, doc)) break;
      this.scores[i] = this.scores[child]!;
      this.docs[i] = this.docs[child]!;
      i = child;
    }
    this.scores[i] = score;
    this.docs[i] = doc;
  }

  /** Empties the heap, best first. */
  drain(): { score: number; doc: number }[] {
    const out: { score: number; doc: number }[] = new Array(this.count);
    while (this.count > 0) {
      const last = --this.count;
      out[last] = { score: this.scores[0]!, doc: this.docs[0]! };
      if (last > 0) this.siftDown(this.scores[last]!, this.docs[last]!, last);
    }
    return out;
  }
}
