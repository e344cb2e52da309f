// 9. Adversarial bodies: request fields whose checks once took the square of their length, each sent
// at N and 8N characters through its route's handler (in process, over the embedded stores): the CPU
// time ratio, held to 12× as the extraction's DOCX growth (linear is 8×). Each was found by an audit:
// a number field's trim and float syntax (18–23 s for 128 KB), secret masking in a 422's echoes (13 s
// for 242 KB).
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { invoke } from '../infra/local/handlers.ts';
import { routes } from '../infra/routes.ts';
import { startLocal } from './lib/local.ts';
import { median, round, within } from './lib/stats.ts';
import type { Benchmark, Figure } from './lib/types.ts';

const SIZES = [25_000, 200_000] as const;
const GROWTH_BUDGET = 12;

interface Case {
  name: string;
  entry: string;
  /** A body of about `n` characters, refused with a 422. */
  body: (n: number) => unknown;
}

const CASES: Case[] = [
  {
    name: 'number field, digits then a letter (project budget_usd)',
    entry: 'projects/create-project',
    body: (n) => ({ title: 'p', tasks: [{ title: 't', budget_usd: `${'1'.repeat(n)}x` }] }),
  },
  {
    name: 'integer field, blanks between two letters (cadence per_week)',
    entry: 'teams/create-team',
    body: (n) => ({
      team_type: 'content',
      display_name: 'n',
      tier: 'starter',
      operation_mode: 'auto',
      content_cadence: [{ platform: 'x', task_type: 'post', per_week: `x${' '.repeat(n)}x` }],
    }),
  },
  {
    name: 'secret masking, values under a secret’s name beside numbers (ads credentials)',
    entry: 'workspaces/save-ads-credentials',
    body: (n) => ({
      my_secret: Array.from({ length: Math.floor(n / 12) }, (_, i) => `q${i.toString(36)}`),
      other: Array.from({ length: Math.floor(n / 12) }, (_, i) => i),
    }),
  },
];

/** CPU milliseconds of one call: the handler's work, not another process's load. */
async function cpuMs(call: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await call();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export const adversarialBenchmark: Benchmark = {
  name: 'adversarial',
  title: 'Adversarial bodies: refusal time at 8× the length',
  async run() {
    const local = await startLocal();
    const figures: Figure[] = [];
    try {
      for (const { name, entry, body } of CASES) {
        const route = routes.find((r) => r.entry === entry)!;
        const { event } = await local.sampleEvent(route);
        const at = async (n: number) => {
          const sent: APIGatewayProxyEventV2 = {
            ...event!,
            body: JSON.stringify(body(n)),
            isBase64Encoded: false,
          };
          const status = (await invoke(route, sent)).statusCode;
          if (status !== 422) throw new Error(`${entry} answered ${status} at ${n}, not 422`);
          const times: number[] = [];
          for (let i = 0; i < 3; i++) times.push(await cpuMs(() => invoke(route, sent)));
          return median(times);
        };
        const [small, large] = [await at(SIZES[0]), await at(SIZES[1])];
        const ratio = large / small;
        figures.push({
          figure: `${name}: ${SIZES[1].toLocaleString('en-US')} ÷ ${SIZES[0].toLocaleString('en-US')} characters`,
          value: round(ratio, 2),
          unit: '×',
          budget: `≤ ${GROWTH_BUDGET}× (linear ≤ 8×)`,
          pass: within(ratio, GROWTH_BUDGET),
          note: `${round(small, 1)} and ${round(large, 1)} ms CPU, median of 3 (a 422 each)`,
        });
      }
    } finally {
      await local.close();
    }
    return { figures };
  },
};
