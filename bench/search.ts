// 5. Search: index build and memory, p50/p99 over a realistic query mix (fresh child process);
// with --eval <WANDS folder>, ranking quality through scripts/eval-search.ts as well.
import { runChild } from './lib/child.ts';
import { round, within } from './lib/stats.ts';
import type { Benchmark, Figure } from './lib/types.ts';

interface SearchRun {
  products: number;
  buildMs: number;
  indexMb: number;
  queries: number;
  p50: number;
  p99: number;
  max: number;
  stopWordP99: number;
  buildCpuMs: number;
  cpuP50: number;
  cpuP99: number;
  cpuStopWordP99: number;
  stats: { terms: number; postings: number; typedArrayBytes: number };
}

const P99_BUDGET_MS = 5;
const BUILD_BUDGET_MS = 1_000;
/** Share of the generated models that come in 2–5 variants (about 60% of the products grouped). */
const VARIANT_SHARE = 0.3;

export const searchBenchmark: Benchmark = {
  name: 'search',
  title: 'Product search over 40,000 generated products',
  async run(args) {
    const run = await runChild<SearchRun>('search', ['40000'], { execArgv: ['--expose-gc'] });
    // The same budgets over a catalogue of variants, whose matches collapse to one result per group.
    const grouped = await runChild<SearchRun>('search', ['40000', String(VARIANT_SHARE)], {
      execArgv: ['--expose-gc'],
    });
    // The same catalogue in Thai: what the dictionary cut of unspaced scripts costs (no budget of its
    // own: DESIGN.md's is the generated catalogue's; docs/shopping.md).
    const thai = await runChild<SearchRun>('search', ['40000', '0', 'thai'], { execArgv: ['--expose-gc'] });
    // Budgets on CPU time (what the work costs; a Lambda has its core to itself), wall time beside it.
    const figures: Figure[] = [
      {
        figure: 'index build, 40,000 products (CPU time)',
        value: round(run.buildCpuMs, 0),
        unit: 'ms',
        budget: `≤ ${BUILD_BUDGET_MS} ms`,
        pass: within(run.buildCpuMs, BUILD_BUDGET_MS),
        note: `wall ${round(run.buildMs, 0)} ms`,
      },
      {
        figure: 'index memory (heap + typed arrays)',
        value: round(run.indexMb, 1),
        unit: 'MB',
        note: `${run.stats.terms.toLocaleString('en-US')} terms, ${run.stats.postings.toLocaleString('en-US')} postings`,
      },
      {
        figure: 'query p50 (CPU time)',
        value: round(run.cpuP50, 3),
        unit: 'ms',
        note: `wall ${round(run.p50, 3)} ms; ${run.queries.toLocaleString('en-US')} timed queries`,
      },
      {
        figure: 'query p99 (CPU time)',
        value: round(run.cpuP99, 3),
        unit: 'ms',
        budget: `≤ ${P99_BUDGET_MS} ms`,
        pass: within(run.cpuP99, P99_BUDGET_MS),
        note: `wall ${round(run.p99, 3)} ms, max ${round(run.max, 2)} ms`,
      },
      {
        figure: 'query p99, stop-word-heavy sentences (CPU time)',
        value: round(run.cpuStopWordP99, 3),
        unit: 'ms',
        budget: `≤ ${P99_BUDGET_MS} ms`,
        pass: within(run.cpuStopWordP99, P99_BUDGET_MS),
        note: `wall ${round(run.stopWordP99, 3)} ms`,
      },
      {
        figure: 'index build, 40,000 products in variant groups (CPU time)',
        value: round(grouped.buildCpuMs, 0),
        unit: 'ms',
        budget: `≤ ${BUILD_BUDGET_MS} ms`,
        pass: within(grouped.buildCpuMs, BUILD_BUDGET_MS),
        note: `wall ${round(grouped.buildMs, 0)} ms; ${VARIANT_SHARE * 100}% of models in 2–5 variants`,
      },
      {
        figure: 'query p99, variant groups (CPU time)',
        value: round(grouped.cpuP99, 3),
        unit: 'ms',
        budget: `≤ ${P99_BUDGET_MS} ms`,
        pass: within(grouped.cpuP99, P99_BUDGET_MS),
        note: `p50 ${round(grouped.cpuP50, 3)} ms; wall p99 ${round(grouped.p99, 3)} ms`,
      },
      {
        figure: 'index build, the 40,000 products in Thai (CPU time)',
        value: round(thai.buildCpuMs, 0),
        unit: 'ms',
        note: `wall ${round(thai.buildMs, 0)} ms; each word one of 66 Thai words, unspaced in phrases of three (Intl.Segmenter cuts them)`,
      },
      {
        figure: 'query p99, Thai (CPU time)',
        value: round(thai.cpuP99, 3),
        unit: 'ms',
        budget: `≤ ${P99_BUDGET_MS} ms`,
        pass: within(thai.cpuP99, P99_BUDGET_MS),
        note: `p50 ${round(thai.cpuP50, 3)} ms; the same queries in Thai, unspaced`,
      },
    ];
    const evalAt = args.indexOf('--eval');
    if (evalAt >= 0 && args[evalAt + 1]) {
      const { main } = await import('../scripts/eval-search.ts');
      const runs = JSON.parse(main([args[evalAt + 1]!, '--json'])) as { name: string; ndcg10: number }[];
      for (const r of runs)
        figures.push({ figure: `NDCG@10, ${r.name}`, value: round(r.ndcg10, 4), note: args[evalAt + 1] });
    } else
      figures.push({
        figure: 'ranking quality (NDCG@10)',
        value: 'not run',
        note: 'pass --eval <WANDS folder> (npm run eval:search)',
      });
    return { figures, details: { ...run, grouped, thai } };
  },
};
