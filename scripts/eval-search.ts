// Offline ranking evaluation on a relevance data set in the WANDS layout (Wayfair ANnotation
// DataSet): tab-separated product.csv, query.csv and label.csv. Prints NDCG@10 (Exact 1, Partial 0.5,
// Irrelevant/unlabelled 0; ideal DCG from each query's labelled products), query latency
// percentiles and index build time, for our BM25F index and a plain BM25 baseline.
//
//   tsx scripts/eval-search.ts <folder> [--json]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import type { CatalogProduct } from '../shared/shopping/catalog.ts';
import { buildIndex, type IndexOptions, PLAIN_BM25_OPTIONS } from '../shared/shopping/search-index.ts';

export const GAINS: Record<string, number> = { exact: 1, partial: 0.5, irrelevant: 0 };

export interface WandsData {
  products: CatalogProduct[];
  queries: { id: string; query: string; query_class: string }[];
  /** query id → product id → gain */
  labels: Map<string, Map<string, number>>;
}

const readTsv = (path: string): Record<string, string>[] => {
  const rows = parseCsv(readFileSync(path, 'utf8'), {
    delimiter: '\t',
    columns: (header: string[]) => header.map((h) => h.trim().toLowerCase().replace(/\s+/g, '_')),
    bom: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
  }) as Record<string, string | undefined>[];
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v ?? ''])));
};

const need = (row: Record<string, string>, column: string, file: string): string => {
  const value = row[column];
  if (value === undefined) throw new Error(`${file}: column "${column}" missing`);
  return value;
};

export const loadWands = (folder: string): WandsData => {
  const products = readTsv(join(folder, 'product.csv')).map((r): CatalogProduct => {
    // "key:value|key:value" features carry colour, material and size words worth indexing.
    const features = (r.product_features ?? '').replace(/[|:]/g, ' ');
    return {
      id: need(r, 'product_id', 'product.csv'),
      title: need(r, 'product_name', 'product.csv'),
      description: [r.product_description ?? '', features].join(' ').trim(),
      product_url: '',
      image_url: '',
      brand: '',
      product_type: r.product_class ?? '',
      category: (r.category_hierarchy ?? '').replaceAll('/', ' > '),
      price_cents: 0,
      currency: 'USD',
      rating: r.average_rating ? Number(r.average_rating) : null,
      availability: 'in_stock',
      merchant_domain: '',
      merchant_type: 'affiliate',
      affiliate_url: '',
      merchant: '',
    };
  });
  const queries = readTsv(join(folder, 'query.csv')).map((r) => ({
    id: need(r, 'query_id', 'query.csv'),
    query: need(r, 'query', 'query.csv'),
    query_class: r.query_class ?? '',
  }));
  const labels = new Map<string, Map<string, number>>();
  for (const r of readTsv(join(folder, 'label.csv'))) {
    const grade = need(r, 'label', 'label.csv').trim().toLowerCase();
    const gain = GAINS[grade];
    if (gain === undefined) throw new Error(`label.csv: unknown label "${grade}"`);
    const q = need(r, 'query_id', 'label.csv');
    const m = labels.get(q) ?? new Map<string, number>();
    labels.set(q, m);
    m.set(need(r, 'product_id', 'label.csv'), gain);
  }
  return { products, queries, labels };
};

const dcg = (gains: readonly number[], k: number): number => {
  let sum = 0;
  for (let i = 0; i < Math.min(k, gains.length); i++) sum += gains[i]! / Math.log2(i + 2);
  return sum;
};

/** NDCG@k of a ranked list of product ids; null when the query has no relevant labelled product. */
export const ndcgAt = (
  ranked: readonly string[],
  labels: ReadonlyMap<string, number>,
  k = 10,
): number | null => {
  const ideal = dcg(
    [...labels.values()].sort((a, b) => b - a),
    k,
  );
  if (ideal === 0) return null;
  return (
    dcg(
      ranked.slice(0, k).map((id) => labels.get(id) ?? 0),
      k,
    ) / ideal
  );
};

/** Nearest-rank percentile of ascending values. */
export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
};

export interface RunReport {
  name: string;
  buildMs: number;
  ndcg10: number;
  /** Queries that counted (at least one relevant labelled product). */
  judged: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** Per query id, for drilling into differences. */
  perQuery: Map<string, number>;
}

export const evaluate = (data: WandsData, name: string, options: Partial<IndexOptions> = {}): RunReport => {
  const t0 = performance.now();
  const index = buildIndex(data.products, options);
  const buildMs = performance.now() - t0;
  // One untimed pass so the JIT has seen the code before latencies are taken.
  for (const q of data.queries) index.search({ query: q.query, max_results: 10 });
  const latencies: number[] = [];
  const perQuery = new Map<string, number>();
  for (const q of data.queries) {
    const start = performance.now();
    const { results } = index.search({ query: q.query, max_results: 10 });
    latencies.push(performance.now() - start);
    const score = ndcgAt(
      results.map((r) => r.id),
      data.labels.get(q.id) ?? new Map(),
    );
    if (score !== null) perQuery.set(q.id, score);
  }
  latencies.sort((a, b) => a - b);
  const scores = [...perQuery.values()];
  return {
    name,
    buildMs,
    ndcg10: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : Number.NaN,
    judged: scores.length,
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    p99Ms: percentile(latencies, 99),
    perQuery,
  };
};

export const formatReport = (data: WandsData, runs: readonly RunReport[]): string => {
  const lines = [
    `products ${data.products.length}, queries ${data.queries.length}, judged ${runs[0]?.judged ?? 0}`,
    'run              NDCG@10  build ms   p50 ms   p95 ms   p99 ms',
  ];
  for (const r of runs) {
    lines.push(
      [
        r.name.padEnd(15),
        r.ndcg10.toFixed(4).padStart(8),
        r.buildMs.toFixed(1).padStart(9),
        r.p50Ms.toFixed(3).padStart(8),
        r.p95Ms.toFixed(3).padStart(8),
        r.p99Ms.toFixed(3).padStart(8),
      ].join(' '),
    );
  }
  const [ours, base] = runs;
  if (ours && base) {
    let wins = 0;
    let losses = 0;
    for (const [id, s] of ours.perQuery) {
      const b = base.perQuery.get(id) ?? 0;
      if (s > b + 1e-9) wins++;
      else if (s < b - 1e-9) losses++;
    }
    lines.push(
      `delta NDCG@10 ${(ours.ndcg10 - base.ndcg10 >= 0 ? '+' : '') + (ours.ndcg10 - base.ndcg10).toFixed(4)}; ` +
        `queries better ${wins}, worse ${losses}`,
    );
  }
  return lines.join('\n');
};

export const main = (argv: readonly string[]): string => {
  const folder = argv.find((a) => !a.startsWith('--'));
  if (!folder) throw new Error('usage: tsx scripts/eval-search.ts <wands-folder> [--json]');
  const data = loadWands(folder);
  const runs = [evaluate(data, 'bm25f (ours)'), evaluate(data, 'bm25 baseline', PLAIN_BM25_OPTIONS)];
  if (argv.includes('--json')) {
    return JSON.stringify(
      runs.map(({ perQuery: _, ...r }) => r),
      null,
      2,
    );
  }
  return formatReport(data, runs);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    console.log(main(process.argv.slice(2)));
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
