// Load: mixed traffic over every route of the route table (reads and writes) through the local HTTP
// server on loopback, at a bounded rate and count, for 60 s by default. Zero 5xx and zero lost writes
// are the pass marks: every 201 the server gave is read back afterwards (the created record by its
// id, chat messages and workspace tasks through their lists); p50/p99 are printed per route kind.
//
//   npm run bench -- load [--seconds 60] [--rate 40] [--concurrency 8]
//   npx tsx bench/load.ts [same options]        (standalone, prints the same table)
import { randomBytes } from 'node:crypto';
import { startServer } from '../infra/local/server.ts';
import { type Route, routeKey, routes } from '../infra/routes.ts';
import { signProviderMessage } from '../shared/avatars/signature.ts';
import { startLocal } from './lib/local.ts';
import { percentile, round } from './lib/stats.ts';
import type { Benchmark, Figure } from './lib/types.ts';

const option = (args: string[], name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? Number(args[at + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

/** Relative weights: reads dominate, every write route still runs hundreds of times a minute. */
const weightOf = (route: Route) => {
  if (route.entry === 'brand-kits/generate-from-upload') return 1; // a PDF parse: ~100 ms of CPU
  if (route.entry.startsWith('system/')) return 1;
  return route.method === 'GET' ? 4 : 2;
};

/** The GET route that reads back what a create route made (its id is the created record's). */
const READ_BACK: Record<string, (id: string, path: Record<string, string>) => string> = {
  'brands/create-brand': (id) => `/api/v1/brands/${id}`,
  'projects/create-project': (id) => `/api/v1/projects/${id}`,
  'teams/create-team': (id) => `/api/v1/teams/${id}`,
  'workspaces/create-workspace': (id) => `/api/v1/workspaces/${id}`,
  'shopping/create-session': (id) => `/api/v1/shopping/sessions/${id}`,
  'brand-kits/create-brand-kit': (id) => `/api/v1/brand-kits/${id}`,
  'chat/create-session': (id) => `/api/v1/chat/sessions/${id}/messages`,
};

interface Sample {
  route: Route;
  status: number;
  ms: number;
}

export const loadBenchmark: Benchmark = {
  name: 'load',
  title: 'Mixed load over every route through the local server (zero 5xx, zero lost writes)',
  async run(args) {
    const seconds = option(args, 'seconds', 60);
    const rate = option(args, 'rate', 40);
    const concurrency = option(args, 'concurrency', 8);
    const maxRequests = Math.ceil(seconds * rate);
    process.env.AVATAR_PROVIDER_SECRET ??= randomBytes(16).toString('hex');
    const local = await startLocal();
    const server = await startServer(0);
    const token = await local.tokenFor(local.users.owner);
    const samples: Sample[] = [];
    const created: { route: Route; id: string; path: Record<string, string> }[] = [];
    const sentMessages = new Map<string, Set<string>>();
    const createdTasks = new Map<string, Set<string>>();
    // Round-robin over a shuffled mix: every route runs within the first cycle, in a random order.
    const mix = routes.flatMap((route) => Array.from({ length: weightOf(route) }, () => route));
    for (let i = mix.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [mix[i], mix[j]] = [mix[j]!, mix[i]!];
    }
    const skipped = new Set<string>();

    async function once(route: Route) {
      const { event, missing } = await local.sampleEvent(route);
      if (!event || missing.length > 0) {
        skipped.add(routeKey(route));
        return;
      }
      const path = (event.pathParameters ?? {}) as Record<string, string>;
      let url = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ''));
      if (event.rawQueryString) url += `?${event.rawQueryString}`;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(event.headers ?? {}))
        if (!['host', 'content-length'].includes(name) && value !== undefined) headers[name] = value;
      if (route.auth !== false) headers.authorization = `Bearer ${token}`;
      if (headers['idempotency-key']) headers['idempotency-key'] = `load-${randomBytes(8).toString('hex')}`;
      let body: Buffer | undefined;
      if (event.body) body = Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
      if (route.entry === 'avatar-provider/callback' && body) {
        // A fresh event id each time, signed as the provider signs (otherwise: replay, 401).
        const report = JSON.parse(body.toString()) as Record<string, unknown>;
        report.event_id = `evt_${randomBytes(8).toString('hex')}`;
        body = Buffer.from(JSON.stringify(report));
        headers['x-avatar-signature'] = signProviderMessage(
          process.env.AVATAR_PROVIDER_SECRET!,
          Math.floor(Date.now() / 1000),
          body,
        );
      }
      const t0 = performance.now();
      const res = await fetch(`${server.url}${url}`, { method: route.method, headers, body });
      const text = await res.text();
      samples.push({ route, status: res.status, ms: performance.now() - t0 });
      if (res.status !== 201) return;
      const id = (JSON.parse(text) as { id?: string }).id;
      if (!id) return;
      if (route.entry === 'chat/send-message') {
        const session = path.session_id!;
        if (!sentMessages.has(session)) sentMessages.set(session, new Set());
        sentMessages.get(session)!.add(id);
      } else if (route.entry === 'workspaces/create-workspace-task') {
        const workspace = path.workspace_id!;
        if (!createdTasks.has(workspace)) createdTasks.set(workspace, new Set());
        createdTasks.get(workspace)!.add(id);
      } else created.push({ route, id, path });
    }

    // Open loop at `rate` per second, at most `concurrency` in flight and `maxRequests` in all.
    const started = performance.now();
    const inFlight = new Set<Promise<void>>();
    let sent = 0;
    let dropped = 0;
    const errors: string[] = [];
    while (sent < maxRequests && performance.now() - started < seconds * 1000) {
      const due = started + (sent * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (inFlight.size >= concurrency) {
        dropped++; // the server is behind: the load generator does not queue without bound
        await Promise.race(inFlight);
      }
      const route = mix[sent % mix.length]!;
      sent++;
      const request = once(route)
        .catch((error: Error) => {
          errors.push(`${routeKey(route)}: ${error.message}`);
        })
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    await Promise.all(inFlight);
    const elapsed = (performance.now() - started) / 1000;

    // Read every write back.
    const get = async (url: string) => {
      const res = await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    let lost = 0;
    const lostSamples: string[] = [];
    for (const { route, id, path } of created) {
      const readBack = READ_BACK[route.entry];
      if (!readBack) continue;
      const { status } = await get(readBack(id, path));
      if (status !== 200) {
        lost++;
        lostSamples.push(`${route.entry} ${id} → ${status}`);
      }
    }
    for (const [session, ids] of sentMessages) {
      const seen = new Set<string>();
      let after: string | null = null;
      do {
        const page = await get(
          `/api/v1/chat/sessions/${session}/messages?limit=100${after ? `&after=${after}` : ''}`,
        );
        for (const message of (page.body.messages ?? page.body.items ?? []) as { id: string }[])
          seen.add(message.id);
        after = (page.body.next_after as string | null) ?? null;
      } while (after);
      for (const id of ids) if (!seen.has(id)) lost++;
    }
    for (const [workspace, ids] of createdTasks) {
      const seen = new Set<string>();
      for (let offset = 0; offset <= 10_000; offset += 100) {
        const res = await fetch(
          `${server.url}/api/v1/workspaces/${workspace}/tasks?limit=100&offset=${offset}`,
          {
            headers: { authorization: `Bearer ${token}` },
          },
        );
        const page = (await res.json()) as { id: string }[];
        for (const task of page) seen.add(task.id);
        if (page.length < 100) break;
      }
      for (const id of ids) if (!seen.has(id)) lost++;
    }
    const writesChecked =
      created.filter((c) => READ_BACK[c.route.entry]).length +
      [...sentMessages.values()].reduce((n, s) => n + s.size, 0) +
      [...createdTasks.values()].reduce((n, s) => n + s.size, 0);

    await server.close();
    await local.close();

    const all = samples.map((s) => s.ms);
    const reads = samples.filter((s) => s.route.method === 'GET').map((s) => s.ms);
    const writes = samples.filter((s) => s.route.method !== 'GET').map((s) => s.ms);
    const fiveXx = samples.filter((s) => s.status >= 500);
    const statuses: Record<string, number> = {};
    for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    const perRoute: Record<
      string,
      { n: number; p50: number; p99: number; statuses: Record<number, number> }
    > = {};
    for (const route of routes) {
      const mine = samples.filter((s) => s.route === route);
      if (mine.length === 0) continue;
      const byStatus: Record<number, number> = {};
      for (const s of mine) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
      perRoute[routeKey(route)] = {
        n: mine.length,
        p50: round(
          percentile(
            mine.map((s) => s.ms),
            50,
          ),
          1,
        ),
        p99: round(
          percentile(
            mine.map((s) => s.ms),
            99,
          ),
          1,
        ),
        statuses: byStatus,
      };
    }
    const covered = Object.keys(perRoute).length;
    const figures: Figure[] = [
      {
        figure: 'requests (bounded rate)',
        value: samples.length,
        note: `${round(samples.length / elapsed, 1)}/s over ${round(elapsed, 1)} s, ≤ ${concurrency} in flight`,
      },
      {
        figure: 'routes exercised',
        value: covered,
        budget: `= ${routes.length}`,
        pass: covered === routes.length && skipped.size === 0,
      },
      { figure: '5xx answers', value: fiveXx.length, budget: '= 0', pass: fiveXx.length === 0 },
      {
        figure: 'lost writes',
        value: lost,
        budget: '= 0',
        pass: lost === 0,
        note: `${writesChecked} writes read back`,
      },
      {
        figure: 'client errors (fetch failed)',
        value: errors.length,
        budget: '= 0',
        pass: errors.length === 0,
      },
      { figure: 'all p50', value: round(percentile(all, 50), 1), unit: 'ms' },
      { figure: 'all p99', value: round(percentile(all, 99), 1), unit: 'ms' },
      {
        figure: 'reads p50 / p99',
        value: `${round(percentile(reads, 50), 1)} / ${round(percentile(reads, 99), 1)}`,
        unit: 'ms',
      },
      {
        figure: 'writes p50 / p99',
        value: `${round(percentile(writes, 50), 1)} / ${round(percentile(writes, 99), 1)}`,
        unit: 'ms',
      },
    ];
    return {
      figures,
      details: {
        statuses,
        skipped: [...skipped],
        dropped_slots: dropped,
        five_xx: fiveXx.slice(0, 10).map((s) => `${routeKey(s.route)} ${s.status}`),
        lost: lostSamples.slice(0, 10),
        errors: errors.slice(0, 10),
        per_route: perRoute,
      },
    };
  },
};

// Standalone: npx tsx bench/load.ts [--seconds 60] [--rate 40]
if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.LOG_LEVEL ||= 'silent'; // empty is unset, as for PORT and DATA_DIR
  const outcome = await loadBenchmark.run(process.argv.slice(2));
  for (const f of outcome.figures)
    console.log(
      `${f.figure.padEnd(32)} ${String(f.value).padStart(14)} ${f.unit ?? ''} ${f.budget ? `(${f.budget}: ${f.pass ? 'pass' : 'FAIL'})` : ''} ${f.note ?? ''}`,
    );
  console.log(JSON.stringify(outcome.details, null, 1));
  process.exit(outcome.figures.every((f) => f.pass !== false) ? 0 : 1);
}
