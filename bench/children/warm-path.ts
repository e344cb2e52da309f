// The warm path in isolation: the whole pipeline (bearer check with a cached verified token, body
// limit, validation, error mapper, access log) around a no-op, against a bare handler returning
// the same response; the same pre-built events for both, sequential awaits, µs per call.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { buildEvent } from '../../infra/local/events.ts';
import { lambdaContext } from '../../infra/local/handlers.ts';
import { signDevToken, useDevAuth } from '../../infra/local/tokens.ts';
import type { Route } from '../../infra/routes.ts';
import { httpRoute } from '../../shared/http/route.ts';
import { reply } from '../lib/child.ts';
import { median } from '../lib/stats.ts';

const CALLS = Number(process.argv[2] ?? 100_000);
const ROUNDS = 10;
const WARM_UP = 10_000;

Object.assign(process.env, {
  AWS_REGION: 'us-east-1',
  TABLE_NAME: 'bench-table',
  BUCKET_NAME: 'bench-bucket',
});
const secret = 'warm-path-benchmark-secret-0123456789abcdef';
useDevAuth(secret);
const token = await signDevToken(secret, '0190d6f8-0000-7000-8000-000000000001');

const route: Route = { method: 'GET', path: '/api/v1/bench/noop', entry: 'bench/noop' };
const events = Array.from({ length: 256 }, () =>
  buildEvent(
    route,
    {},
    {
      method: 'GET',
      url: '/api/v1/bench/noop',
      headers: { authorization: `Bearer ${token}`, host: 'localhost' },
    },
  ),
);
const contexts = events.map(() => lambdaContext(route));

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;
const piped: Handler = httpRoute({}, async () => ({ ok: true }));
const bare: Handler = async () => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ ok: true }),
});

/** µs per call, in wall time and in this process's CPU time (which other people's load barely moves). */
async function calls(handler: Handler, count: number) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < count; i++) await handler(events[i & 255]!, contexts[i & 255]!);
  const wall = ((performance.now() - start) * 1000) / count;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / count };
}

await calls(piped, WARM_UP);
await calls(bare, WARM_UP);
const perRound = CALLS / ROUNDS;
const pipedUs: { wall: number; cpu: number }[] = [];
const bareUs: { wall: number; cpu: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  pipedUs.push(await calls(piped, perRound));
  bareUs.push(await calls(bare, perRound));
}
const wall = (list: typeof pipedUs) => median(list.map((r) => r.wall));
const cpu = (list: typeof pipedUs) => median(list.map((r) => r.cpu));
const check = (await piped(events[0]!, contexts[0]!)) as { statusCode: number };
reply({
  calls: CALLS,
  status: check.statusCode,
  pipedUs: wall(pipedUs),
  bareUs: wall(bareUs),
  pipedCpuUs: cpu(pipedUs),
  bareCpuUs: cpu(bareUs),
});
