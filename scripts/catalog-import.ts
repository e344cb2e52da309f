// npm run catalog:import -- <feed> --merchant <domain> --merchant-type <affiliate|ucp|acp>
//   [--tracking key=value]... [--format auto|gmc|acp|jsonl]
// Imports a merchant feed into the local service's catalogue (the data folder's stores, or those of
// a running `npm start`, which serves the new version within a minute). Bad rows are listed and
// skipped; a file that is bad as a whole changes nothing and exits with status 1.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  callerFolder,
  exitOnLocalProblem,
  localSettings,
  openLocalStores,
  readCommandLineFile,
} from '../infra/local/runtime.ts';
import { isMerchantType } from '../shared/shopping/catalog.ts';
import { FeedError, type FeedFormat } from '../shared/shopping/feeds.ts';
import { type ImportOptions, importCatalogFeed } from '../shared/shopping/import.ts';

const USAGE =
  'usage: npm run catalog:import -- <feed> --merchant <domain> --merchant-type <affiliate|ucp|acp> ' +
  '[--tracking key=value]... [--format auto|gmc|acp|jsonl]';
const FORMATS = ['auto', 'gmc', 'acp', 'jsonl'] as const;

export class UsageError extends Error {}

export const parseImportArgs = (argv: string[]): { file: string; options: ImportOptions } => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      merchant: { type: 'string' },
      'merchant-type': { type: 'string' },
      tracking: { type: 'string', multiple: true },
      format: { type: 'string', default: 'auto' },
    },
  });
  const [file, ...extra] = positionals;
  const merchantType = values['merchant-type'];
  if (!file || extra.length > 0 || !values.merchant || !isMerchantType(merchantType))
    throw new UsageError(USAGE);
  if (!(FORMATS as readonly string[]).includes(values.format!)) throw new UsageError(USAGE);
  const trackingParams: Record<string, string> = {};
  for (const pair of values.tracking ?? []) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--tracking takes key=value, not "${pair}"`);
    trackingParams[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return {
    file,
    options: {
      merchant: values.merchant,
      merchantType,
      trackingParams,
      format: values.format as 'auto' | FeedFormat,
    },
  };
};

/** The feed's bytes and the import's options, or the exit status of a bad command line or an unreadable
 * feed: both before any store is opened. A relative path is read as invoke reads its event's. */
export async function readImportArgs(
  argv: string[],
  print: (line: string) => void,
  from = callerFolder(),
): Promise<{ bytes: Buffer; options: ImportOptions } | number> {
  let parsed: ReturnType<typeof parseImportArgs>;
  try {
    parsed = parseImportArgs(argv);
  } catch (error) {
    print((error as Error).message);
    return 2;
  }
  try {
    return { bytes: await readCommandLineFile(parsed.file, from), options: parsed.options };
  } catch (error) {
    print(
      `cannot read the feed ${parsed.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
    return 2;
  }
}

/** Imports a feed read by readImportArgs into the stores the environment points at; the exit status. */
async function importRead(
  { bytes, options }: { bytes: Buffer; options: ImportOptions },
  print: (line: string) => void,
): Promise<number> {
  try {
    const report = await importCatalogFeed(bytes, options);
    print(
      `imported ${report.imported} products from ${report.merchant} (${report.merchant_type}, ${report.format} feed), ` +
        `replacing ${report.replaced}; catalogue version ${report.version} holds ${report.catalog_products} products`,
    );
    if (report.withheld > 0)
      print(`withheld ${report.withheld} rows the feed keeps out of search (enable_search false)`);
    if (report.rejected.length > 0) print(`skipped ${report.rejected.length} rows:`);
    for (const row of report.rejected) print(`  line ${row.line}: ${row.reason}`);
    return 0;
  } catch (error) {
    if (!(error instanceof FeedError)) throw error;
    print(`feed refused, the catalogue is unchanged: ${error.message}`);
    return 1;
  }
}

/** Runs one import against the stores the environment points at; returns the exit status. */
export async function runImport(argv: string[], print = console.log): Promise<number> {
  const feed = await readImportArgs(argv, print);
  return typeof feed === 'number' ? feed : importRead(feed, print);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.env.LOG_LEVEL ||= 'silent'; // empty is unset, as for PORT and DATA_DIR
  // The command line and the feed first: a mistake there makes no data folder and opens no store.
  const feed = await readImportArgs(process.argv.slice(2), console.log);
  if (typeof feed === 'number') process.exit(feed);
  const { aws } = await openLocalStores(localSettings().dataDir).catch(exitOnLocalProblem);
  try {
    process.exitCode = await importRead(feed, console.log);
  } finally {
    await aws?.close();
  }
}
