// 7. Local API throughput: GET project and GET dashboard through the local HTTP server, loaded by
// autocannon from a separate process over loopback, against the same handlers invoked in-process
// by the same number of concurrent loops for the same time. The ratio is what the server costs.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildEvent } from '../infra/local/events.ts';
import { invoke } from '../infra/local/handlers.ts';
import { startServer } from '../infra/local/server.ts';
import { matchRoute } from '../infra/routes.ts';
import { startLocal } from './lib/local.ts';
import { ROOT } from './lib/paths.ts';
import { percentile, round } from './lib/stats.ts';
import { type Benchmark, type Figure, NOT_AVAILABLE } from './lib/types.ts';

const run = promisify(execFile);
const CONNECTIONS = 10;
const DEFAULT_SECONDS = 5;

interface Load {
  rps: number;
  p99: number;
  errors: number;
}

/** autocannon's CLI in its own process, so the load generator does not share the server's event loop. */
async function overHttp(url: string, token: string, seconds: number): Promise<Load> {
  const { stdout } = await run(
    process.execPath,
    [
      join(ROOT, 'node_modules/autocannon/autocannon.js'),
      '-j',
      '-n',
      '-c',
      String(CONNECTIONS),
      '-d',
      String(seconds),
      '-H',
      `authorization=Bearer ${token}`,
      url,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const report = JSON.parse(stdout) as {
    requests: { average: number };
    latency: { p99: number };
    non2xx: number;
    errors: number;
  };
  return { rps: report.requests.average, p99: report.latency.p99, errors: report.non2xx + report.errors };
}

/** The same handler, CONNECTIONS closed loops in this process. */
async function inProcess(path: string, token: string, seconds: number): Promise<Load> {
  const match = matchRoute('GET', path);
  if (!match.found) throw new Error(`no route for ${path}`);
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const event = buildEvent(match.route, match.pathParameters, {
          method: 'GET',
          url: path,
          headers: { authorization: `Bearer ${token}`, host: 'localhost' },
        });
        const start = performance.now();
        const result = await invoke(match.route, event);
        latencies.push(performance.now() - start);
        if ((result.statusCode ?? 200) >= 400) errors++;
      }
    }),
  );
  return { rps: latencies.length / seconds, p99: percentile(latencies, 99), errors };
}

export const throughputBenchmark: Benchmark = {
  name: 'throughput',
  title: 'Local API throughput: HTTP server vs in-process',
  async run(args) {
    const secondsAt = args.indexOf('--seconds');
    const seconds = secondsAt >= 0 ? Number(args[secondsAt + 1]) : DEFAULT_SECONDS;
    const local = await startLocal();
    const server = await startServer(0);
    const token = await local.tokenFor(local.users.owner);
    const figures: Figure[] = [];
    const details: Record<string, { http: Load; inProcess: Load }> = {};
    try {
      const targets = [
        {
          label: 'GET project',
          path: local.ids.project_id ? `/api/v1/projects/${local.ids.project_id}` : undefined,
        },
        {
          label: 'GET dashboard',
          path: local.ids.team_id ? `/api/v1/teams/${local.ids.team_id}/dashboard` : undefined,
        },
      ];
      for (const { label, path } of targets) {
        if (!path) {
          figures.push({
            figure: `${label}: requests/s over HTTP`,
            value: NOT_AVAILABLE,
            note: 'nothing seeded to read yet',
          });
          continue;
        }
        await inProcess(path, token, 1); // warm-up: modules loaded, JIT warm
        const direct = await inProcess(path, token, seconds);
        const http = await overHttp(`${server.url}${path}`, token, seconds);
        details[label] = { http, inProcess: direct };
        const errors = http.errors + direct.errors;
        figures.push(
          {
            figure: `${label}: requests/s over HTTP (autocannon, ${CONNECTIONS} connections)`,
            value: round(http.rps, 0),
            unit: 'req/s',
            note: `p99 ${round(http.p99, 1)} ms; ${seconds} s${errors ? `; ${errors} error responses` : ''}`,
          },
          {
            figure: `${label}: requests/s in-process (${CONNECTIONS} loops)`,
            value: round(direct.rps, 0),
            unit: 'req/s',
            note: `p99 ${round(direct.p99, 1)} ms`,
          },
          {
            figure: `${label}: server overhead (in-process ÷ HTTP throughput)`,
            value: round(direct.rps / http.rps, 2),
            unit: '×',
            note: `p99 ${round(http.p99 / direct.p99, 2)}× the in-process p99`,
          },
        );
      }
    } finally {
      await server.close();
      await local.close();
    }
    return { figures, details };
  },
};
