/** Percentiles and ratios shared by the benchmarks. */

export interface Percentiles {
  n: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Nearest-rank percentiles of the samples, rounded to 0.01. */
export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN);
  return { n: samples.length, p50: at(50), p95: at(95), p99: at(99) };
}

/** Percentiles plus the extremes and mean, for small sample sets where p99 is the maximum. */
export function summary(samples: readonly number[]): Percentiles & { min: number; max: number; mean: number } {
  const total = samples.reduce((sum, value) => sum + value, 0);
  return {
    ...percentiles(samples),
    min: round(Math.min(...samples)),
    max: round(Math.max(...samples)),
    mean: round(total / Math.max(1, samples.length)),
  };
}

export const round = (value: number, digits = 2): number => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};

/** `value / floor`, rounded to 0.01. */
export const ratio = (value: number, floor: number): number => round(value / floor);

/** "met" or "MISSED", for the printed verdict of a target. */
export const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');
