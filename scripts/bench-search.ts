// Search index benchmark on the deterministic generated catalogue.
//
//   node --expose-gc --import tsx scripts/bench-search.ts [count=40000] [--variants <share>] [--wands <folder>]
//
// --variants 0.3 puts 30% of the generated models in variant groups (item_group_id) of 2–5 products.
// --wands also writes the catalogue and a labelled query set in the WANDS layout, for
// scripts/eval-search.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  generateCatalog,
  generateQueries,
  seededRandom,
  toWandsFiles,
} from '../shared/shopping/generate-catalog.ts';
import { buildIndex } from '../shared/shopping/search-index.ts';

const args = process.argv.slice(2);
const wandsAt = args.indexOf('--wands');
const wandsDir = wandsAt === -1 ? undefined : args[wandsAt + 1];
const variantsAt = args.indexOf('--variants');
const variantShare = variantsAt === -1 ? 0 : Number(args[variantsAt + 1]);
// The flags' values are not the count (an absent flag's -1 + 1 made the first argument one).
const flagValues = new Set([wandsAt, variantsAt].filter((at) => at !== -1).map((at) => at + 1));
const count = Number(args.find((a, i) => /^\d+$/.test(a) && !flagValues.has(i)) ?? 40000);

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  gc?.(); // twice: one pass can leave young-generation garbage behind
  // Typed arrays live outside the JS heap (arrayBuffers), so both are counted.
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1048576;
};

const catalog = generateCatalog(count, 42, { variantShare });
const before = heapMb();
const t0 = performance.now();
const index = buildIndex(catalog.products);
const buildMs = performance.now() - t0;
const after = heapMb();

// Mixed query shapes: single nouns, attribute + noun, brand, chatty stop-word-heavy, and misses.
const rng = seededRandom(1);
const base = generateQueries(generateCatalog(2000, 42), 200, 3).map((q) => q.query);
const queries = [...base, 'a pair of shoes for the beach', 'black', 'gift', 'zzzz nothing matches', 'the'];
const shapes = [
  {},
  { merchant_type: 'affiliate' as const },
  { price_min_cents: 2000, price_max_cents: 8000 },
  { max_results: 20 },
];
for (const q of queries) index.search({ query: q }); // warm-up
const latencies: number[] = [];
for (let round = 0; round < 20; round++) {
  for (const q of queries) {
    const shape = shapes[Math.floor(rng() * shapes.length)]!;
    const start = performance.now();
    index.search({ query: q, ...shape });
    latencies.push(performance.now() - start);
  }
}
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]!;

const stats = index.stats();
console.log(
  JSON.stringify(
    {
      node: process.version,
      products: count,
      variant_share: variantShare,
      build_ms: Number(buildMs.toFixed(1)),
      queries_timed: latencies.length,
      p50_ms: Number(pct(50).toFixed(3)),
      p95_ms: Number(pct(95).toFixed(3)),
      p99_ms: Number(pct(99).toFixed(3)),
      max_ms: Number(latencies[latencies.length - 1]!.toFixed(3)),
      index_memory_mb: gc ? Number((after - before).toFixed(1)) : 'run with --expose-gc',
      typed_array_mb: Number((stats.typedArrayBytes / 1048576).toFixed(1)),
      terms: stats.terms,
      postings: stats.postings,
    },
    null,
    2,
  ),
);

if (wandsDir) {
  mkdirSync(wandsDir, { recursive: true });
  const files = toWandsFiles(catalog, generateQueries(catalog, 300, 7));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(wandsDir, name), text);
  console.log(`WANDS-layout files written to ${wandsDir}`);
}
