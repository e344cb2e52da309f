// Product search on the generated catalogue (fixed seed): index build time and memory, and query
// latency over a mix of shopper queries, in a fresh process run with --expose-gc. A second argument,
// a share between 0 and 1, puts that share of the generated products' models in variant groups; a
// third, `thai`, writes the catalogue and the queries in Thai (below).
import { generateCatalog, generateQueries, seededRandom } from '../../shared/shopping/generate-catalog.ts';
import { buildIndex } from '../../shared/shopping/search-index.ts';
import { reply } from '../lib/child.ts';
import { percentile } from '../lib/stats.ts';

const COUNT = Number(process.argv[2] ?? 40_000);
const VARIANT_SHARE = Number(process.argv[3] ?? 0);
const THAI = process.argv[4] === 'thai';
const ROUNDS = 10;

// Thai product words. A catalogue "in Thai" maps each word of the generated texts to one of these (by
// a hash of the word) and writes them as Thai does, unspaced, a space between phrases of three: what
// the search's dictionary cut (Intl.Segmenter) costs against the same catalogue in English.
const THAI_WORDS = (
  'กาแฟ คั่ว บด เสื้อ ยืด ผ้า ฝ้าย รองเท้า วิ่ง ผู้ชาย หูฟัง บลูทูธ น้ำหอม กระเป๋า หนัง สีดำ สีขาว ' +
  'สีแดง ขนาด ใหญ่ เล็ก สำหรับ เด็ก ผู้หญิง กันน้ำ โต๊ะ เก้าอี้ โคมไฟ ไม้ เหล็ก แก้ว จาน ชาม ช้อน ' +
  'ส้อม หมอน ผ้าห่ม ที่นอน ตู้ ชั้นวาง นาฬิกา แว่นตา หมวก ถุงเท้า กางเกง กระโปรง ชุด เครื่อง ไฟฟ้า ' +
  'พัดลม หม้อ กระทะ มีด ขวด น้ำ สบู่ แชมพู ครีม ยา ของเล่น หนังสือ ปากกา สมุด โทรศัพท์ สาย ชาร์จ'
).split(' ');
const thaiWord = (word: string) => {
  let hash = 0;
  for (let i = 0; i < word.length; i++) hash = (Math.imul(hash, 31) + word.charCodeAt(i)) | 0;
  return THAI_WORDS[Math.abs(hash) % THAI_WORDS.length]!;
};
const inThai = (text: string, phrase = 3) => {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const phrases: string[] = [];
  for (let i = 0; i < words.length; i += phrase)
    phrases.push(
      words
        .slice(i, i + phrase)
        .map(thaiWord)
        .join(''),
    );
  return phrases.join(' ');
};

const gc = (globalThis as { gc?: () => void }).gc;
/** Heap plus typed arrays (the index's postings live outside the JS heap). */
const heapMb = () => {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1048576;
};

const catalog = generateCatalog(COUNT, 42, { variantShare: VARIANT_SHARE });
if (THAI)
  for (const product of catalog.products) {
    product.title = inThai(product.title);
    product.description = inThai(product.description ?? '');
  }
const before = heapMb();
const buildCpu = process.cpuUsage();
const start = performance.now();
const index = buildIndex(catalog.products);
const buildMs = performance.now() - start;
const buildUsed = process.cpuUsage(buildCpu);
const buildCpuMs = (buildUsed.user + buildUsed.system) / 1000;
const indexMb = heapMb() - before;

// The mix: generated shopper queries (nouns, attribute + noun, brands), chatty stop-word-heavy
// sentences, one-word queries and misses; each with one of the request shapes the API allows.
const generated = generateQueries(generateCatalog(2_000, 42), 200, 3).map((q) => q.query);
const stopWordHeavy = [
  'a pair of shoes for the beach',
  'i am looking for something to wear to the office',
  'what is the best gift for my mom',
  'show me the ones that are on sale',
  'something for the kitchen that is not too expensive',
  'do you have it in black or in blue',
  'the',
  'what can i get for under fifty',
  'is there a bag that fits a laptop',
  'can you find me a warm jacket for the winter',
];
const short = ['black', 'gift', 'lamp', 'shoes', 'sofa', 'wireless'];
const misses = ['zzzz nothing matches', 'qwertyuiop', 'xylophone factory tour'];
const shapes = [
  {},
  { merchant_type: 'affiliate' as const },
  { price_min_cents: 2_000, price_max_cents: 8_000 },
  { max_results: 20 },
];
const written = (query: string) => (THAI ? inThai(query, Number.POSITIVE_INFINITY) : query);
const mix = [...generated, ...stopWordHeavy, ...short, ...misses].map(written);
const chattyMix = new Set(stopWordHeavy.map(written));
// Warm-up with every request shape, so the timed rounds measure warm code ("p99 warm in-process"),
// not the compiler settling the filter paths on their first use.
for (let round = 0; round < 2; round++)
  for (const query of mix) for (const shape of shapes) index.search({ query, ...shape });

const rng = seededRandom(1);
// Wall and CPU time per query: on a shared machine the wall-time tail is mostly the moments this
// process waited for a core; CPU time is what the query costs.
const all: number[] = [];
const chatty: number[] = [];
const allCpu: number[] = [];
const chattyCpu: number[] = [];
for (let round = 0; round < ROUNDS; round++)
  for (const query of mix) {
    const shape = shapes[Math.floor(rng() * shapes.length)]!;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    index.search({ query, ...shape });
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu0);
    const cpuMs = (used.user + used.system) / 1000;
    all.push(ms);
    allCpu.push(cpuMs);
    if (chattyMix.has(query)) {
      chatty.push(ms);
      chattyCpu.push(cpuMs);
    }
  }

reply({
  products: COUNT,
  buildMs,
  buildCpuMs,
  indexMb: gc ? indexMb : Number.NaN,
  queries: all.length,
  p50: percentile(all, 50),
  p99: percentile(all, 99),
  max: Math.max(...all),
  stopWordP99: percentile(chatty, 99),
  cpuP50: percentile(allCpu, 50),
  cpuP99: percentile(allCpu, 99),
  cpuStopWordP99: percentile(chattyCpu, 99),
  stats: index.stats(),
});
