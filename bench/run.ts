// npm run bench [-- <name> [options]]: runs the benchmarks of DESIGN.md §6 (all, or the one named),
// prints one table (figure, value, budget, pass/fail), writes bench/results.json, the charts in
// docs/perf-*.svg and the "latest values" section of docs/performance.md.
//
//   npm run bench                                   everything (≈ 4 minutes on 2 busy cores)
//   npm run bench -- bundle --pairs 20              one benchmark, with its options
//   npm run bench -- extraction --docs ~/guidelines also every PDF/DOCX in that folder
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { writeLatestValues } from './lib/docs.ts';
import { ROOT } from './lib/paths.ts';
import { round } from './lib/stats.ts';
import type { Benchmark, Figure, ResultsFile, StoredResult } from './lib/types.ts';

// Handlers log one line per request; thousands of them would drown the table.
process.env.LOG_LEVEL ||= 'silent'; // empty is unset, as for PORT and DATA_DIR
// The SDK's notice that its 2027 releases need Node.js 22 says nothing about these numbers.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: never[]) => {
  const text = typeof warning === 'string' ? warning : `${warning.name} ${warning.message}`;
  if (!text.includes('NodeVersionSupportWarning') && !text.includes('will require node >=22'))
    emitWarning(warning, ...rest);
}) as typeof process.emitWarning;

const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  bundle: async () => (await import('./bundle.ts')).bundleBenchmark,
  'warm-path': async () => (await import('./warm-path.ts')).warmPathBenchmark,
  'round-trips': async () => (await import('./round-trips.ts')).roundTripsBenchmark,
  growth: async () => (await import('./growth.ts')).growthBenchmark,
  search: async () => (await import('./search.ts')).searchBenchmark,
  extraction: async () => (await import('./extraction.ts')).extractionBenchmark,
  throughput: async () => (await import('./throughput.ts')).throughputBenchmark,
  load: async () => (await import('./load.ts')).loadBenchmark,
  adversarial: async () => (await import('./adversarial.ts')).adversarialBenchmark,
};

const RESULTS = join(ROOT, 'bench/results.json');

const [name, ...options] = process.argv.slice(2);
if (name && !(name in BENCHMARKS)) {
  console.error(`unknown benchmark "${name}"; one of: ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
const selected = name ? [name] : Object.keys(BENCHMARKS);

let previous: ResultsFile | undefined;
try {
  previous = JSON.parse(await readFile(RESULTS, 'utf8')) as ResultsFile;
} catch {
  previous = undefined;
}
const results: ResultsFile = {
  updated_at: new Date().toISOString(),
  machine: { node: process.version, cpus: cpus().length, loadavg_1m: round(loadavg()[0] ?? 0, 1) },
  benchmarks: { ...previous?.benchmarks },
};

const started = performance.now();
for (const key of selected) {
  const benchmark = await BENCHMARKS[key]!();
  process.stdout.write(`▶ ${key}: ${benchmark.title} … `);
  const t0 = performance.now();
  let stored: StoredResult;
  try {
    const outcome = await benchmark.run(options);
    for (const chart of outcome.charts ?? []) await writeFile(join(ROOT, 'docs', chart.file), chart.svg);
    stored = {
      title: benchmark.title,
      ran_at: new Date().toISOString(),
      seconds: 0,
      figures: outcome.figures,
      details: outcome.details,
    };
  } catch (error) {
    const message = (error as Error).stack ?? String(error);
    console.error(`\n${message}`);
    stored = {
      title: benchmark.title,
      ran_at: new Date().toISOString(),
      seconds: 0,
      figures: [{ figure: 'benchmark failed', value: (error as Error).message.slice(0, 200), pass: false }],
    };
  }
  stored.seconds = round((performance.now() - t0) / 1000, 1);
  console.log(`${stored.seconds} s`);
  results.benchmarks[key] = stored;
}

const mark = (figure: Figure) => (figure.pass === undefined ? '' : figure.pass ? 'pass' : 'FAIL');
const value = (figure: Figure) =>
  typeof figure.value === 'number' ? `${figure.value}${figure.unit ? ` ${figure.unit}` : ''}` : figure.value;
const rows = selected.flatMap((key) =>
  results.benchmarks[key]!.figures.map((figure) => [
    key,
    figure.figure,
    value(figure),
    figure.budget ?? '',
    mark(figure),
  ]),
);
const header = ['benchmark', 'figure', 'value', 'budget', 'result'];
const widths = header.map((h, i) => Math.min(72, Math.max(h.length, ...rows.map((row) => row[i]!.length))));
const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
console.log(`\n${line(header)}\n${widths.map((w) => '─'.repeat(w)).join('  ')}`);
for (const row of rows) console.log(line(row));

const failed = rows.filter((row) => row[4] === 'FAIL').length;
const total = round((performance.now() - started) / 1000, 1);
console.log(
  `\n${rows.filter((row) => row[4] === 'pass').length} pass, ${failed} fail, ${total} s in all (load average ${results.machine.loadavg_1m} on ${results.machine.cpus} cores)`,
);

await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
await writeLatestValues(results);
console.log('wrote bench/results.json, docs/performance.md (latest values) and docs/perf-*.svg');
process.exit(failed > 0 ? 1 : 0);
