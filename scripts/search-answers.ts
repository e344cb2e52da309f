// Fingerprint of every answer the search index gives, to check that a change to the index or the
// tokeniser changes no answer (a build made cheaper must answer exactly as before).
//
//   npx tsx scripts/search-answers.ts
//
// Prints one SHA-256 over every search and matchAll answer (ids, scores to the last bit, total_count)
// for 40,050 products (the generated catalogue plus 50 written to reach the tokeniser's other paths:
// accents, CJK, hyphens, long and shared texts), 309 queries and three filters, with the written
// texts' tokens; and the index's term and posting counts.
import { createHash } from 'node:crypto';
import type { CatalogProduct, MerchantType } from '../shared/shopping/catalog.ts';
import { generateCatalog, generateQueries } from '../shared/shopping/generate-catalog.ts';
import { buildIndex, type SearchQuery } from '../shared/shopping/search-index.ts';
import { tokenize } from '../shared/shopping/text.ts';

const TYPES: readonly MerchantType[] = ['affiliate', 'ucp', 'acp'];

// Texts that leave the generated catalogue's all-ASCII path: each is used as a title, a brand, a
// category and a description somewhere below.
const WRITTEN = [
  'Crème Brûlée DISHES, 2-pack',
  'Straße-Schuhe für Damen',
  'Wi-Fi 6 Router with Mesh-Network support',
  'Cotton T-Shirt (men’s) — don’t iron',
  '蓝牙耳机 Bluetooth earphones',
  'バッグ bag, パック pack',
  '무선 이어폰 wireless-이어폰',
  'ｆｕｌｌ－ｗｉｄｔｈ ＴＶ stand ﬁne',
  'Ἀθῆναι mug, Москва́ tote',
  'עִבְרִית סֵפֶר notebook',
  'كِتَاب book cover',
  'knives, shelves, mice, lenses and hoodies',
  'e-bike‐rack x-large co-op',
  'Dell-XPS-13-9310 laptop',
  'a-é-b 1-2-3 -lead trail- --',
  'Office chair in grey; coffee table in oak',
  'Ø 30 cm Łódź þorn ıstanbul æther œuvre',
  'the and of a to for',
  'Gaming mouse wireless RGB 16000 DPI ergonomic grip, works with Windows and macOS, 2-year warranty',
  '大 bag, 包 tote',
  '',
];

const written = (i: number): CatalogProduct => {
  const text = (k: number) => WRITTEN[(i + k) % WRITTEN.length]!;
  const type = TYPES[i % TYPES.length]!;
  const id = `W${String(i).padStart(3, '0')}`;
  return {
    id,
    title: text(0),
    description: `${text(3)} ${text(7)} ${i % 2 ? WRITTEN.join(' ') : ''}`,
    product_url: `https://shop.example.com/w/${id}`,
    image_url: '',
    brand: i % 5 === 0 ? WRITTEN[18]! : text(1),
    product_type: text(2),
    category: i % 4 === 0 ? '2271' : text(5),
    price_cents: 500 + i * 397,
    currency: 'USD',
    rating: null,
    availability: 'in_stock',
    merchant_domain: 'shop.example.com',
    merchant_type: type,
    affiliate_url: `https://shop.example.com/w/${id}`,
    merchant: 'shop.example.com',
  };
};

const products = [
  ...generateCatalog(40_000, 42).products,
  ...Array.from({ length: 50 }, (_, i) => written(i)),
];
const index = buildIndex(products);

const queries = [
  ...generateQueries(generateCatalog(2_000, 42), 200, 3).map((q) => q.query),
  'a pair of shoes for the beach',
  'i am looking for something to wear to the office',
  'what can i get for under fifty',
  'can you find me a warm jacket for the winter',
  'the',
  'the who',
  'black',
  'gift',
  'lamp',
  'shoes',
  'sofa',
  'wireless',
  'zzzz nothing matches',
  'qwertyuiop',
  '',
  '   ',
  ...WRITTEN.filter(Boolean),
  'wifi router',
  'wi fi',
  'tshirt',
  't-shirt',
  'ebike',
  '耳机',
  '蓝',
  'creme brulee',
  'strasse',
  'knife shelf mouse lens hoodie',
  'coffee table oak',
  // Single words of the written texts, as many as the set has room for.
  ...WRITTEN.filter(Boolean).flatMap((t) => t.split(/[\s,;]+/).filter((w) => w.length > 1)),
];
const QUERY_COUNT = 309;
if (queries.length < QUERY_COUNT) throw new Error(`only ${queries.length} queries`);
queries.length = QUERY_COUNT;

const filters: readonly Omit<SearchQuery, 'query'>[] = [
  {},
  { merchant_type: 'affiliate', max_results: 20 },
  { price_min_cents: 2_000, price_max_cents: 8_000, max_results: 5 },
];

const hash = createHash('sha256');
// The written texts' tokens too: the tokeniser's edge paths, directly.
for (const text of WRITTEN) hash.update(`${tokenize(text).join(' ')}\n`);
let matches = 0;
for (const query of queries)
  for (const filter of filters) {
    const q = { query, ...filter };
    const page = index.search(q);
    hash.update(`${JSON.stringify(q)}\n${page.total_count}\n`);
    for (const r of page.results) hash.update(`${r.id} ${r.score}\n`);
    for (const m of index.matchAll(q)) hash.update(`${m.product.id}:${m.score};`);
    matches += page.total_count;
  }
const stats = index.stats();
console.log(
  `${products.length} products, ${queries.length} queries x ${filters.length} filters, ${matches} matches, ` +
    `${stats.terms} terms, ${stats.postings} postings`,
);
console.log(hash.digest('hex'));
