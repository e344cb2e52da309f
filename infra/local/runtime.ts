// The local runtime's data folder: embedded stores, the dev secret, seed.json, and a note of where
// a running instance listens (so `npm run invoke` can use the same stores while `npm start` runs).
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { loadOrCreateLocalSecretsKey, UnreadableKeyFileError } from '../../shared/crypto/local-key.ts';
import { DataFolderInUseError, type EmbeddedAws, startEmbeddedAws } from './embedded.ts';
import { type SeedIds, type SeedUsers, seedDemoData } from './seed/index.ts';
import { loadOrCreateSecret, signDevToken, useDevAuth } from './tokens.ts';

/** Where a script's relative paths are taken from: the folder npm was run from (INIT_CWD; npm runs
 * scripts in the package folder). */
export const callerFolder = () => process.env.INIT_CWD ?? process.cwd();

/** A file named on a script's command line: from `from` (the caller's folder), else from the
 * project's (so `events/…` works from any subfolder); absolute as given. The first failure is thrown. */
export const readCommandLineFile = (path: string, from = callerFolder()): Promise<Buffer> =>
  readFile(resolve(from, path)).catch((error: unknown) =>
    readFile(resolve(path)).catch(() => {
      throw error;
    }),
  );

/** PORT and DATA_DIR, an empty one as unset (`PORT=` was port 0, any free port; `DATA_DIR=` the
 * current folder, which took the demo data into the checkout). `PORT=0` still asks for any free port.
 * A PORT of anything but digits is NaN, which `npm start` refuses: Number() reads ` ` as 0 (any free
 * port) and `0x50` or `1e3` as ports too. */
export const localSettings = () => ({
  port: portSetting(process.env.PORT),
  dataDir: resolve(process.env.DATA_DIR || '.data'),
});

const portSetting = (text: string | undefined) =>
  !text ? 3000 : /^\d+$/.test(text) ? Number(text) : Number.NaN;

export interface SeedFile {
  base_url: string;
  users: { owner: { id: string; token: string }; other: { id: string; token: string } };
  [id: string]: unknown;
}

const readJson = async <T>(file: string): Promise<T | undefined> => {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
};

interface RunningInstance {
  pid: number;
  dynamodbEndpoint: string;
  s3Endpoint: string;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether something accepts connections at a store endpoint: a pid alone may have been reused. */
const isServing = (endpoint: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(endpoint);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.setTimeout(1000);
    const done = (serving: boolean) => {
      socket.destroy();
      resolve(serving);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });

/** The `npm start` serving this folder, if one still is (its note can outlive it). */
export async function runningInstance(dataDir: string): Promise<RunningInstance | undefined> {
  const running = await readJson<RunningInstance>(join(dataDir, 'running.json'));
  if (!running || running.pid === process.pid || !isAlive(running.pid)) return undefined;
  return (await isServing(running.dynamodbEndpoint)) ? running : undefined;
}

/** DATA_DIR names something that is no folder and cannot be made one (a file, a path through a file,
 * a place without write access). */
export class UnusableDataFolderError extends Error {
  constructor(dataDir: string, code: string) {
    super(
      `DATA_DIR ${dataDir} cannot be used as a data folder (${code}). Set DATA_DIR to a folder, or to a path where one can be made.`,
    );
  }
}

/** Makes `path` and its missing parents, one level at a time. Node's `mkdir({recursive: true})` never
 * returns where a parent stands but refuses the child with ENOENT (`/proc/x`: it makes the parent
 * again, forever); here that ENOENT is thrown once the parent stands. */
async function makeFolders(path: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST' && (await stat(path)).isDirectory()) return;
    if (code !== 'ENOENT' || dirname(path) === path) throw error;
    await makeFolders(dirname(path));
    // A concurrent start may make it meanwhile.
    await mkdir(path).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== 'EEXIST') throw again;
    });
  }
}

/** The data folder, made where it is not there yet. */
export async function makeDataFolder(dataDir: string): Promise<void> {
  try {
    await makeFolders(resolve(dataDir));
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code && ['EEXIST', 'ENOTDIR', 'ENOENT', 'EACCES', 'EPERM', 'EROFS'].includes(code))
      throw new UnusableDataFolderError(dataDir, code);
    throw error;
  }
}

/** Opens the data folder's stores: its own embedded AWS, or the one a running `npm start` holds. */
export async function openLocalStores(dataDir: string): Promise<{ aws?: EmbeddedAws; secret: string }> {
  await makeDataFolder(dataDir);
  const secret = await loadOrCreateSecret(dataDir);
  useDevAuth(secret);
  await loadOrCreateLocalSecretsKey(dataDir); // integration secrets are sealed under it
  const running = await runningInstance(dataDir);
  if (running) {
    const { LOCAL_TABLE, LOCAL_BUCKET } = await import('./embedded.ts');
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      TABLE_NAME: LOCAL_TABLE,
      BUCKET_NAME: LOCAL_BUCKET,
      DYNAMODB_ENDPOINT: running.dynamodbEndpoint,
      S3_ENDPOINT: running.s3Endpoint,
    });
    return { secret };
  }
  return { aws: await startEmbeddedAws({ dataDir }), secret };
}

/** What the local scripts say, in one line and exit 1, when the data folder cannot be used as it is:
 * another process holds its stores without serving them (an invoke on its own stores, a start not yet
 * serving), or its seed.json cannot be read. Any other error is thrown on. */
export function exitOnLocalProblem(error: unknown): never {
  if (error instanceof DataFolderInUseError)
    console.error(
      `Another process is using ${error.dataDir} (an npm run invoke, or an npm start not yet serving). Wait for it, or set DATA_DIR to another folder.`,
    );
  else if (
    error instanceof UnreadableSeedError ||
    error instanceof UnreadableKeyFileError ||
    error instanceof UnusableDataFolderError
  )
    console.error(error.message);
  else throw error;
  process.exit(1);
}

/** seed.json is there but is not one this runtime wrote. Seeding anew would add a second demo set
 * beside the first and forget the first one's ids, so the scripts stop and say so. */
export class UnreadableSeedError extends Error {
  constructor(file: string, reason: string) {
    super(
      `${file} cannot be read (${reason}). Fix it, or delete it to seed a new demo set beside the data already there.`,
    );
  }
}

/** seed.json as written, or undefined before the first seeding. */
async function readSeed(file: string): Promise<SeedFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UnreadableSeedError(file, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  let seed: Partial<SeedFile>;
  try {
    seed = JSON.parse(text);
  } catch (error) {
    throw new UnreadableSeedError(file, `not JSON: ${(error as Error).message}`);
  }
  if (typeof seed?.users?.owner?.id !== 'string' || typeof seed.users.other?.id !== 'string')
    throw new UnreadableSeedError(file, 'no users.owner.id and users.other.id');
  return seed as SeedFile;
}

export async function markRunning(dataDir: string, aws: EmbeddedAws) {
  const note: RunningInstance = {
    pid: process.pid,
    dynamodbEndpoint: aws.dynamodbEndpoint,
    s3Endpoint: aws.s3Endpoint,
  };
  await writeFile(join(dataDir, 'running.json'), JSON.stringify(note));
}

/** The instance stops serving the folder: the next start or invoke opens the stores itself. */
export const markStopped = (dataDir: string) => rm(join(dataDir, 'running.json'), { force: true });

/** A sample event's `{{name}}` placeholders filled from `values`; a name it lacks stays as it is and
 * is listed in `missing`. */
export function fillPlaceholders(text: string, values: Record<string, string>) {
  const missing = new Set<string>();
  const filled = text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => {
    if (values[key] !== undefined) return values[key];
    missing.add(key);
    return whole;
  });
  return { text: filled, missing: [...missing] };
}

/** The placeholders seed.json fills: `{{owner_token}}`, `{{other_token}}`, `{{owner_id}}` and every
 * id (`{{project_id}}`, …). */
export const seedPlaceholders = (seed: SeedFile): Record<string, string> => ({
  owner_token: seed.users.owner.token,
  other_token: seed.users.other.token,
  owner_id: seed.users.owner.id,
  ...Object.fromEntries(
    Object.entries(seed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  ),
});

/** A sample event filled from seed.json. */
export const fillFromSeed = (text: string, seed: SeedFile): string =>
  fillPlaceholders(text, seedPlaceholders(seed)).text;

/** Seeds on the first start; afterwards keeps the ids and refreshes the tokens, and `base_url` when
 * given (`npm run invoke` serves nothing, so it keeps the one the server wrote). */
export async function ensureSeed(
  dataDir: string,
  baseUrl: string | undefined,
  secret: string,
): Promise<SeedFile> {
  const file = join(dataDir, 'seed.json');
  const existing = await readSeed(file);
  baseUrl ??= existing?.base_url ?? `http://localhost:${localSettings().port}`;
  let users: SeedUsers;
  let ids: SeedIds;
  if (existing) {
    const { base_url: _, users: known, ...rest } = existing;
    users = { owner: known.owner.id, other: known.other.id };
    ids = rest as SeedIds;
  } else ({ users, ids } = await seedDemoData());
  const seed: SeedFile = {
    base_url: baseUrl,
    users: {
      owner: { id: users.owner, token: await signDevToken(secret, users.owner) },
      other: { id: users.other, token: await signDevToken(secret, users.other) },
    },
    ...ids,
  };
  // Whole or not at all: a reader (an invoke beside) that met it truncated would take it for missing
  // and seed a second demo set. A rename replaces it in one step.
  const written = `${file}.${randomUUID()}.tmp`;
  await writeFile(written, `${JSON.stringify(seed, null, 2)}\n`, { mode: 0o600 });
  await rename(written, file);
  return seed;
}
