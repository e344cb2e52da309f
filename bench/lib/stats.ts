// Small statistics for noisy shared machines: medians and percentiles, never means.

export const median = (values: readonly number[]): number => percentile(values, 50);

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const round = (value: number, digits = 2) => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};

export const kb = (bytes: number) => round(bytes / 1024, 1);

/** A figure's pass mark: undefined when the value could not be measured. */
export const within = (value: number, limit: number) => (Number.isFinite(value) ? value <= limit : undefined);
