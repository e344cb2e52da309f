// 4. Growth: the same reads on a team, project and workspace holding 10, 1,000 and 10,000 records,
// invoked side by side (round-robin over the sizes) against the embedded store; the budget is the
// ratio of median latencies, 10,000 over 10.
//
// Every size gets the same "current" content (10 recent tasks, today's loop instances, one strategy
// cycle); the larger ones add history before it: tasks created and scheduled over the two years
// before (and, for "today", one loop instance per ten tasks on past days). So the figure answers the
// question the budget asks: does a read get slower as history accumulates?

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildEvent } from '../infra/local/events.ts';
import { invoke } from '../infra/local/handlers.ts';
import { matchRoute, type Route, routes } from '../infra/routes.ts';
import { loopId } from '../shared/teams/keys.ts';
import { startLocal } from './lib/local.ts';
import { ROOT } from './lib/paths.ts';
import { median, round, within } from './lib/stats.ts';
import { lineChart } from './lib/svg.ts';
import { type Benchmark, type Figure, NOT_AVAILABLE } from './lib/types.ts';

const SIZES = [10, 1_000, 10_000] as const;
const RECENT = 10;
const BUDGET = 1.2;
// Each call takes 2–15 ms, so 100 rounds cost seconds; with 30 the median moved by up to 15% between runs.
const DEFAULT_ROUNDS = 100;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CHUNK = 1_000;

interface Target {
  label: string;
  entry: string;
  /** Why the read has no budget (DESIGN.md §6 names dashboard, today and project reads). */
  unbudgeted?: string;
  /** Path (with query) per size, filled once the data exists. */
  urls: Map<number, string>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The SDK warns when more than 50 requests wait for a socket; batch seeding does that on purpose. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('socket usage at capacity')) warn(...args);
  };
  try {
    return await work();
  } finally {
    console.warn = warn;
  }
}

const chunks = <T>(items: T[]) =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));

async function seedTeams(owner: string, targets: Target[], notes: string[]) {
  const { createTeam } = await import('../shared/teams/store.ts');
  const agents = await import('../shared/teams/agents.ts');
  if (typeof agents.addTasks !== 'function') {
    notes.push('shared/teams/agents.ts has no addTasks (batch writes) yet');
    return;
  }
  const at = Date.now();
  for (const size of SIZES) {
    const team = await createTeam(owner, {
      team_type: 'content',
      display_name: `Growth ${size}`,
      tier: 'growth',
      operation_mode: 'autopilot',
      brand_id: null,
      brand_kit_id: null,
      content_strategy: {},
      orchestrator_cadence: {},
      config: { timezone: 'Europe/Berlin' },
      content_cadence: [
        {
          platform: 'instagram',
          task_type: 'social_post',
          per_week: 3,
          preferred_days: ['monday', 'wednesday', 'friday'],
          preferred_times: ['09:30'],
          title: null,
        },
        {
          platform: 'blog',
          task_type: 'blog_post',
          per_week: 1,
          preferred_days: ['thursday'],
          preferred_times: ['08:00'],
          title: null,
        },
      ],
    });
    const member = await agents.addMember(team.id, {
      role: 'writer',
      agent_slug: 'social-writer',
      display_name: 'Social writer',
      persona_name: 'Leo Park',
      capabilities: ['social_post', 'instagram', 'blog_post'],
    });
    const cycle = await agents.addCycle(team.id, {
      start_date: iso(at - 4 * DAY),
      end_date: iso(at + 10 * DAY),
      phases: [
        { name: 'research', start_day: 1 },
        { name: 'production', start_day: 3 },
      ],
    });
    // History first (two years, ending ten days ago: outside this week's calendar), then the same
    // recent tasks every size has.
    const history = size - RECENT;
    const historyStart = at - 740 * DAY;
    const step = history > 0 ? (730 * DAY) / history : 0;
    const task = (created: number, scheduled: number, i: number) => ({
      task_type: 'social_post',
      platform: 'instagram',
      title: `Growth post #${i + 1}`,
      description: 'Drafted from the strategy brief.',
      status: scheduled < at ? 'published' : 'scheduled',
      scheduled_for: iso(scheduled),
      created_at: iso(created),
      assigned_member_id: member.id,
      output_data: { words: 120 },
    });
    const old = Array.from({ length: history }, (_, i) =>
      task(historyStart + i * step, historyStart + i * step + 2 * DAY, i),
    );
    await quietly(async () => {
      for (const chunk of chunks(old)) await agents.addTasks(team.id, chunk);
    });
    await agents.addTasks(
      team.id,
      Array.from({ length: RECENT }, (_, i) =>
        task(at - (RECENT - i) * 6 * HOUR, at - 24 * HOUR + i * 6 * HOUR, history + i),
      ),
    );
    // Past days' loop instances (one per ten records), then today's: done, running, to come.
    const pastLoops = Math.floor(history / 10);
    const loopInput = (scheduled: number, status: string) => ({
      loop_id: loopId('social'),
      cycle_instance_id: cycle.cycle_instance_id,
      occurrence_day: 1,
      scheduled_at: iso(scheduled),
      status,
      started_at: iso(scheduled),
      completed_at: status === 'completed' ? iso(scheduled + HOUR) : null,
    });
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < pastLoops) {
          const i = next++;
          await agents.addLoopInstance(team.id, loopInput(at - 4 * DAY - i * (DAY / 10), 'completed'));
        }
      }),
    );
    for (const [offset, status] of [
      [-3, 'completed'],
      [-1, 'running'],
      [2, 'scheduled'],
    ] as const)
      await agents.addLoopInstance(team.id, loopInput(at + offset * HOUR, status));
    targets[0]!.urls.set(size, `/api/v1/teams/${team.id}/dashboard`);
    targets[1]!.urls.set(size, `/api/v1/teams/${team.id}/today`);
    // This week: its tasks, and the cadence's slots from the team's creation (now) on, alike at every size.
    targets[4]!.urls.set(size, `/api/v1/teams/${team.id}/calendar/generate?period=weekly`);
  }
}

async function seedProjects(owner: string, target: Target) {
  const { createProject } = await import('../shared/projects/store.ts');
  for (const size of SIZES) {
    // createProject writes its tasks with batch writes before the project item (the counters with it).
    const project = await quietly(() =>
      createProject(owner, {
        title: `Growth ${size}`,
        description: null,
        mode: 'manual',
        composer_prompt: null,
        bundle_template: null,
        tasks: Array.from({ length: size }, (_, i) => ({
          title: `Asset ${i + 1}`,
          status: i % 3 === 0 ? 'completed' : 'pending',
          budget_usd: 10 + (i % 7),
        })),
      }),
    );
    target.urls.set(size, `/api/v1/projects/${project.id}`);
  }
}

async function seedWorkspaces(owner: string, target: Target, notes: string[]) {
  const { createWorkspace } = await import('../shared/workspaces/store.ts');
  const tasks = await import('../shared/workspaces/tasks.ts');
  if (typeof tasks.createWorkspaceTasks !== 'function') {
    notes.push('shared/workspaces/tasks.ts has no createWorkspaceTasks (batch writes) yet');
    return;
  }
  for (const size of SIZES) {
    const workspace = await createWorkspace(owner, { name: `Growth ${size}` });
    const inputs = Array.from({ length: size }, (_, i) => ({
      skill_slug: 'social-post',
      title: `Growth task #${i + 1}`,
      description: 'Weekly social post for the campaign.',
      schedule_type: 'once' as const,
      priority: 'normal' as const,
      approval_level: 'review' as const,
      trigger: { source: 'manual' },
      hired_agent_id: '0190d6f8-0000-7000-8000-0000000000aa',
    }));
    await quietly(async () => {
      for (const chunk of chunks(inputs)) await tasks.createWorkspaceTasks(owner, workspace.id, chunk);
    });
    target.urls.set(size, `/api/v1/workspaces/${workspace.id}/tasks`);
  }
}

const routeOf = (entry: string): Route | undefined =>
  routes.find((route) => route.entry === entry && existsSync(join(ROOT, 'functions', `${route.entry}.ts`)));

export const growthBenchmark: Benchmark = {
  name: 'growth',
  title: 'Growth: latency at 10, 1,000 and 10,000 records',
  async run(args) {
    const roundsAt = args.indexOf('--rounds');
    const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : DEFAULT_ROUNDS;
    const targets: Target[] = [
      { label: 'team dashboard', entry: 'teams/get-dashboard', urls: new Map() },
      { label: 'team today', entry: 'teams/get-today', urls: new Map() },
      { label: 'project', entry: 'projects/get-project', urls: new Map() },
      {
        label: 'workspace task list',
        entry: 'workspaces/list-workspace-tasks',
        urls: new Map(),
        unbudgeted:
          'no §6 budget; the spec fixes its default page at 50, so 10 records answer 10 items and 10,000 answer 50 (10,000 vs 1,000 shows history costs nothing)',
      },
      { label: 'calendar (generate, weekly)', entry: 'teams/generate-calendar', urls: new Map() },
    ];
    const local = await startLocal({ seed: false });
    const owner = local.users.owner;
    const token = await local.tokenFor(owner);
    const notes: string[] = [];
    const seedStart = performance.now();
    try {
      await seedTeams(owner, targets, notes);
      await seedProjects(owner, targets[2]!);
      await seedWorkspaces(owner, targets[3]!, notes);
      const seedSeconds = round((performance.now() - seedStart) / 1000, 1);

      const call = async (route: Route, url: string) => {
        const match = matchRoute(route.method, url.split('?')[0]!);
        if (!match.found) throw new Error(`no route for ${url}`);
        const event = buildEvent(route, match.pathParameters, {
          method: route.method,
          url,
          headers: { authorization: `Bearer ${token}`, host: 'localhost' },
        });
        // Nothing else runs meanwhile, so this process's CPU time is the handler's, the SDK's and
        // the embedded store's: a second view that other people's load barely moves.
        const cpu = process.cpuUsage();
        const start = performance.now();
        const result = await invoke(route, event);
        const ms = performance.now() - start;
        const used = process.cpuUsage(cpu);
        if ((result.statusCode ?? 200) >= 400)
          throw new Error(`${route.entry} answered ${result.statusCode}: ${result.body}`);
        return { ms, cpuMs: (used.user + used.system) / 1000 };
      };

      const figures: Figure[] = [];
      const series: { label: string; points: { x: number; y: number }[] }[] = [];
      const details: Record<string, { wallMs: Record<number, number>; cpuMs: Record<number, number> }> = {};
      for (const target of targets) {
        const route = routeOf(target.entry);
        if (!route || target.urls.size < SIZES.length) {
          figures.push({
            figure: `${target.label}: 10,000 vs 10`,
            value: NOT_AVAILABLE,
            note: !route ? `functions/${target.entry}.ts does not exist yet` : notes.join('; '),
          });
          continue;
        }
        const samples = new Map<number, { ms: number; cpuMs: number }[]>(SIZES.map((size) => [size, []]));
        // Warm-up (module load, first calendar run stores its entries), then round-robin, the order
        // of the sizes turning every round.
        for (const size of SIZES) for (let i = 0; i < 3; i++) await call(route, target.urls.get(size)!);
        for (let r = 0; r < rounds; r++)
          for (let k = 0; k < SIZES.length; k++) {
            const size = SIZES[(r + k) % SIZES.length]!;
            samples.get(size)!.push(await call(route, target.urls.get(size)!));
          }
        const medianOf = (size: number, key: 'ms' | 'cpuMs') =>
          round(median(samples.get(size)!.map((s) => s[key])), 2);
        const medians = Object.fromEntries(SIZES.map((size) => [size, medianOf(size, 'ms')]));
        const cpu = Object.fromEntries(SIZES.map((size) => [size, medianOf(size, 'cpuMs')]));
        details[target.label] = { wallMs: medians, cpuMs: cpu };
        series.push({ label: target.label, points: SIZES.map((size) => ({ x: size, y: medians[size]! })) });
        const ratio = round(medians[10_000]! / medians[10]!, 2);
        const note = `median ${medians[10]} / ${medians[1_000]} / ${medians[10_000]} ms at 10 / 1,000 / 10,000, ${rounds} rounds; CPU time ${round(cpu[10_000]! / cpu[10]!, 2)}×`;
        figures.push({
          figure: `${target.label}: 10,000 vs 10`,
          value: ratio,
          unit: '×',
          ...(target.unbudgeted
            ? { note: `${note}; ${target.unbudgeted}` }
            : { budget: `≤ ${BUDGET}×`, pass: within(ratio, BUDGET), note }),
        });
        // Context: both sides past every page size, so only history differs.
        figures.push({
          figure: `${target.label}: 10,000 vs 1,000`,
          value: round(medians[10_000]! / medians[1_000]!, 2),
          unit: '×',
          note: `CPU time ${round(cpu[10_000]! / cpu[1_000]!, 2)}×`,
        });
      }
      figures.push({
        figure: 'seeding 3 × (team, project, workspace) at 10 + 1,000 + 10,000',
        value: seedSeconds,
        unit: 's',
        note: 'batch writes through the domain functions',
      });
      return {
        figures,
        charts: [
          {
            file: 'perf-growth.svg',
            svg: lineChart({
              title: 'Median latency against record count (embedded store, in-process)',
              xLabel: 'records (log scale)',
              yLabel: 'median ms',
              series,
            }),
          },
        ],
        details,
      };
    } finally {
      await local.close();
    }
  },
};
