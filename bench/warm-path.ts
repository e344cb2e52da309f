// 2. Warm path: the middleware chain's cost per request over a bare handler (child process).
import { runChild } from './lib/child.ts';
import { round } from './lib/stats.ts';
import type { Benchmark } from './lib/types.ts';

const BUDGET_US = 50;

interface WarmPath {
  calls: number;
  status: number;
  pipedUs: number;
  bareUs: number;
  pipedCpuUs: number;
  bareCpuUs: number;
}

export const warmPathBenchmark: Benchmark = {
  name: 'warm-path',
  title: 'Warm path: middleware chain vs bare handler',
  async run() {
    // As deployed: the access log line is written (to /dev/null here); then without it, for context.
    const logged = await runChild<WarmPath>('warm-path', [], { env: { LOG_LEVEL: undefined } });
    const silent = await runChild<WarmPath>('warm-path', [], { env: { LOG_LEVEL: 'silent' } });
    // CPU time is the budget figure: wall time on a shared machine includes the time this process
    // waited for a core, which is other people's load, not the pipeline's cost.
    const overhead = round(logged.pipedCpuUs - logged.bareCpuUs, 1);
    if (logged.status !== 200) throw new Error(`the no-op route answered ${logged.status}, not 200`);
    return {
      figures: [
        {
          figure: 'middleware chain overhead per request',
          value: overhead,
          unit: 'µs',
          budget: `≤ ${BUDGET_US} µs`,
          pass: overhead <= BUDGET_US,
          note: `CPU time: ${round(logged.pipedCpuUs, 1)} µs vs bare ${round(logged.bareCpuUs, 2)} µs; wall time: ${round(logged.pipedUs, 1)} vs ${round(logged.bareUs, 2)} µs; median of 10 rounds, ${logged.calls.toLocaleString('en-US')} calls each, bearer auth on (verified token cached)`,
        },
        {
          figure: 'overhead without the access log line',
          value: round(silent.pipedCpuUs - silent.bareCpuUs, 1),
          unit: 'µs',
          note: `LOG_LEVEL=silent (CPU time; wall ${round(silent.pipedUs - silent.bareUs, 1)} µs): the difference is what the one JSON log line per request costs`,
        },
      ],
      details: { logged, silent },
    };
  },
};
