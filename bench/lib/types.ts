// What every benchmark hands back to the runner: the rows of the table, plus charts it drew.

export interface Figure {
  /** What was measured, in the words of the table. */
  figure: string;
  /** A number in `unit`, or a short text ("not available yet"). */
  value: number | string;
  unit?: string;
  /** The DESIGN.md §6 budget this figure is held to, as text ("≤ 1.5×"); absent: context only. */
  budget?: string;
  /** true/false against the budget; undefined when there is none (or the figure could not be taken). */
  pass?: boolean;
  note?: string;
}

export interface Chart {
  /** File name under docs/ (perf-*.svg). */
  file: string;
  svg: string;
}

export interface Outcome {
  figures: Figure[];
  charts?: Chart[];
  /** Extra detail kept in results.json (per-function rows, raw medians). Keep it small. */
  details?: unknown;
}

export interface Benchmark {
  name: string;
  title: string;
  run(args: string[]): Promise<Outcome>;
}

export const NOT_AVAILABLE = 'not available yet';

export interface StoredResult {
  title: string;
  ran_at: string;
  seconds: number;
  figures: Figure[];
  details?: unknown;
}

export interface ResultsFile {
  updated_at: string;
  machine: { node: string; cpus: number; loadavg_1m: number };
  benchmarks: Record<string, StoredResult>;
}
