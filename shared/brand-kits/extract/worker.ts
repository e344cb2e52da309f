// Extraction in a worker process, so that its deadline and a memory limit hold whatever the document.
// The readers and the drafting rules are synchronous and read the clock only between their steps: in
// the function's own thread an 18 MB DOCX of plain text held it for 16 s of a 10 s deadline and used
// 1.4 GB of its 1.5 GB. A worker is killed at the deadline, stopped at its heap limit, and killed past
// a budget for its whole memory (`watchMemory`); any way the caller answers 422, and the function (the
// local server: every other request) carries on.
//
// A process, not a worker thread: Lambda starts Node.js with --max-old-space-size (90% of the
// function's memory), which overrides a thread's own heap limit (nodejs/node#43991), and a thread
// that runs out of heap can abort the whole process (nodejs/node#47224). A process takes its own flags.
//
// This file is the worker's entry as well as its owner's: a function ships as one bundled file, and
// the worker runs that same file, which serves jobs when it starts marked as ours.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ServiceUnavailableError } from '../../http/errors.ts';
import { log } from '../../log.ts';
import { BRAND_KIT_LIMITS } from '../schemas.ts';
import {
  type BrandKitExtraction,
  DocumentError,
  type DocumentErrorKind,
  refuseNonDocument,
  timedOut,
} from './types.ts';

/** Set in a worker's environment: the process serves extraction jobs. */
const ROLE_VARIABLE = 'BRAND_KIT_EXTRACTOR';
/** Starting a worker (and loading pdf.js in it) may take this long before the document's deadline starts. */
export const WORKER_START_MS = 5_000;
/** How far past the document's deadline a worker may run before it is killed: its own check's slack. */
const GRACE_MS = 250;
/** What a worker's standard error keeps for the log of a worker that died (V8's out-of-memory report). */
const STDERR_TAIL_CHARS = 4_096;
/** How often a busy worker's resident memory is read: one decoding a PDF's streams grew about 100 MB a
 * second, and was killed at 1,028 MB against 1,024. */
const MEMORY_POLL_MS = 50;
/** Resident memory is read from /proc (Linux, Lambda's too). Where there is none (macOS), a worker is
 * bounded by its heap limit and deadline only: a development machine's risk, not the function's. */
const READS_RESIDENT_MEMORY = existsSync('/proc/self/status');

interface Job {
  bytes: Uint8Array;
  timeoutMs: number;
}
type Reply =
  | { started: true }
  | { extraction: BrandKitExtraction }
  | { refused: { kind: DocumentErrorKind; message: string } }
  | { fault: string };

if (process.env[ROLE_VARIABLE] === '1' && process.send) serve();

function serve(): void {
  const reply = (message: Reply) => process.send?.(message);
  process.on('message', async ({ bytes, timeoutMs }: Job) => {
    try {
      const { extractBrandKit } = await import('./index.ts');
      const onStart = () => reply({ started: true });
      reply({ extraction: await extractBrandKit(bytes, { timeoutMs, onStart }) });
    } catch (error) {
      if (error instanceof DocumentError) reply({ refused: { kind: error.kind, message: error.message } });
      else reply({ fault: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
  // The function that started it is gone (or let it go): nothing is left to answer.
  process.on('disconnect', () => process.exit(0));
}

interface Worker {
  process: ChildProcess;
  stderr: string;
}

const idle: Worker[] = [];
/** Workers reading now: killed if this process ends first (a worker in synchronous work would read on). */
const busy = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of busy) child.kill('SIGKILL');
});

/** What a worker is given of the environment: no credentials, table or key names; it reads bytes only. */
const WORKER_ENVIRONMENT = ['PATH', 'HOME', 'TMPDIR', 'TZ', 'LANG', 'NODE_OPTIONS', 'LOG_LEVEL'];

function spawn(): Worker {
  const self = fileURLToPath(import.meta.url);
  const heap = `--max-old-space-size=${BRAND_KIT_LIMITS.extractHeapMb}`;
  // From TypeScript sources (npm start, the tests) the worker runs under tsx; a bundle is JavaScript.
  const execArgv = self.endsWith('.ts') ? ['--import', import.meta.resolve('tsx/esm'), heap] : [heap];
  const child = fork(self, [], {
    execArgv,
    env: {
      ...Object.fromEntries(
        WORKER_ENVIRONMENT.flatMap((name) => (name in process.env ? [[name, process.env[name]]] : [])),
      ),
      [ROLE_VARIABLE]: '1',
    },
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  const worker: Worker = { process: child, stderr: '' };
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    worker.stderr = (worker.stderr + text).slice(-STDERR_TAIL_CHARS);
  });
  // An idle worker that dies is dropped; a busy one's death is its job's (readInWorker).
  child.on('error', (error) => log.warn('brand-kit extractor error', { error: error.message }));
  child.on('close', () => {
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
  });
  return worker;
}

/** A worker keeps no process alive while idle: Lambda freezes it, a script may end. */
function hold(worker: Worker, held: boolean): void {
  const child = worker.process;
  // Standard error is a pipe, a socket (typed only as a stream).
  for (const handle of [child, child.channel, child.stderr as Socket | null]) {
    if (held) handle?.ref();
    else handle?.unref();
  }
}

/** A worker that read a heavy document keeps what it grew to (a review saw 480–536 MB idle against a
 * 600 MB budget), and the next document's reading would count it: past half the budget, a new worker
 * (its start and parser load) reads the next one. */
function holdsMuchMemory(worker: Worker): boolean {
  const { pid } = worker.process;
  const mb = READS_RESIDENT_MEMORY && pid !== undefined ? residentMb(pid) : undefined;
  return mb !== undefined && mb > BRAND_KIT_LIMITS.extractResidentMb / 2;
}

/** Keeps a worker for the next document, as many as may read at once (on Lambda, one). */
function release(worker: Worker): void {
  if (idle.length >= BRAND_KIT_LIMITS.extractConcurrency || holdsMuchMemory(worker)) {
    worker.process.kill('SIGKILL');
    return;
  }
  hold(worker, false);
  idle.push(worker);
}

let reading = 0;
const waiting: (() => void)[] = [];

/** A turn to read a document: at most BRAND_KIT_LIMITS.extractConcurrency at once, first come first
 * served. Past the machine's cores, workers would share them and each document lose its deadline's time. */
async function turn(): Promise<{ waited: boolean; done: () => void }> {
  const waited = reading >= BRAND_KIT_LIMITS.extractConcurrency;
  if (waited) await new Promise<void>((resolve) => waiting.push(resolve));
  else reading++;
  // The turn passes to the next in line as it is, or ends.
  const done = () => {
    const next = waiting.shift();
    if (next) next();
    else reading--;
  };
  return { waited, done };
}

/**
 * `extractBrandKit` in a worker process: the same answer or DocumentError, plus 'timeout' when the
 * worker has to be killed at the deadline and 'too_large' when the document needs more heap than
 * BRAND_KIT_LIMITS.extractHeapMb or more memory in all than BRAND_KIT_LIMITS.extractResidentMb. A
 * worker that breaks down (or cannot load the parser) is an Error.
 * A document waits for its turn (`turn`), and its deadline starts once the worker has started reading.
 * Only a local server ever waits (a Lambda process serves one request at a time): a turn that comes
 * too late to start and read by `endsAt` is refused as a busy service is, 503 with Retry-After, not
 * read under a shorter deadline that would blame the document.
 */
export async function extractInWorker(
  bytes: Uint8Array,
  { timeoutMs, endsAt = Number.POSITIVE_INFINITY }: { timeoutMs: number; endsAt?: number },
): Promise<BrandKitExtraction> {
  // What can be no document is refused here, without a turn or a worker's start.
  refuseNonDocument(bytes);
  const since = Date.now();
  const { waited, done } = await turn();
  try {
    if (waited && Date.now() + WORKER_START_MS + timeoutMs > endsAt)
      throw new ServiceUnavailableError(Math.ceil((Date.now() - since) / 1000));
    return await readInWorker(bytes, timeoutMs);
  } finally {
    done();
  }
}

/** An idle worker still able to take a job: one that died (its 'close' not yet handled) is passed over. */
function takeIdle(): Worker | undefined {
  for (let worker = idle.pop(); worker; worker = idle.pop()) {
    const { connected, exitCode, signalCode } = worker.process;
    if (connected && exitCode === null && signalCode === null) return worker;
  }
  return undefined;
}

const tooLarge = (mb: number) =>
  new DocumentError('too_large', `Reading the document needs more than ${mb} MB of memory.`);

/** A process's resident memory in MB (/proc's VmRSS, whatever the page size), or undefined once it has
 * ended. */
function residentMb(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s*(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * Calls `over` when a busy worker's resident memory passes BRAND_KIT_LIMITS.extractResidentMb; stopped
 * by the function it returns. The heap limit does not count ArrayBuffers, into which pdf.js decodes a
 * PDF's streams: a 1 MB PDF of Flate-compressed blanks took a worker past 1.9 GB, and on Lambda both
 * processes share the function's 1,536 MB. The timer keeps no process alive.
 */
function watchMemory(child: ChildProcess, over: (mb: number) => void): () => void {
  const { pid } = child;
  if (!READS_RESIDENT_MEMORY || pid === undefined) return () => {};
  const timer = setInterval(() => {
    const mb = residentMb(pid);
    if (mb !== undefined && mb > BRAND_KIT_LIMITS.extractResidentMb) over(mb);
  }, MEMORY_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** A worker that ended before it began reading. */
class EndedBeforeStart extends Error {}

async function readInWorker(bytes: Uint8Array, timeoutMs: number): Promise<BrandKitExtraction> {
  const kept = takeIdle();
  if (kept) {
    try {
      return await readWith(kept, bytes, timeoutMs);
    } catch (error) {
      // It died idle, its end not yet handled here (the document met a closed pipe, or the end came
      // first): the document is not to blame, and a new worker reads it.
      if (!(error instanceof EndedBeforeStart)) throw error;
    }
  }
  return readWith(spawn(), bytes, timeoutMs);
}

function readWith(worker: Worker, bytes: Uint8Array, timeoutMs: number): Promise<BrandKitExtraction> {
  const child = worker.process;
  hold(worker, true);
  busy.add(child);
  worker.stderr = '';
  return new Promise((resolve, reject) => {
    const stop = (error: Error) => {
      finish();
      child.kill('SIGKILL');
      reject(error);
    };
    const unwatch = watchMemory(child, (mb) => {
      const budgetMb = BRAND_KIT_LIMITS.extractResidentMb;
      log.warn('brand-kit extractor killed past its memory budget', { residentMb: Math.round(mb), budgetMb });
      stop(tooLarge(budgetMb));
    });
    // A start this slow is the machine's (a loaded one: seen on a local server under load), not the
    // document's: the client may retry, as for any dependency that did not answer in time.
    let timer = setTimeout(() => {
      log.warn('dependency unavailable', {
        error: `The brand-kit extractor did not start within ${WORKER_START_MS} ms.`,
      });
      stop(new ServiceUnavailableError());
    }, WORKER_START_MS);
    let started = false;
    /** The worker is gone: before it began reading, maybe long before this document. */
    const ended = (message: string) => (started ? new Error(message) : new EndedBeforeStart(message));
    const onMessage = (message: Reply) => {
      if ('started' in message) {
        started = true;
        clearTimeout(timer);
        timer = setTimeout(() => stop(timedOut(timeoutMs)), timeoutMs + GRACE_MS);
        return;
      }
      if ('fault' in message) return stop(new Error(`Brand-kit extraction failed: ${message.fault}`));
      // A worker whose deadline passed may still be finishing abandoned reads: not reused.
      if ('refused' in message && message.refused.kind === 'timeout') return stop(timedOut(timeoutMs));
      finish();
      release(worker);
      if ('refused' in message) reject(new DocumentError(message.refused.kind, message.refused.message));
      else resolve(message.extraction);
    };
    const onClose = (code: number | null, signal: NodeJS.Signals | null) => {
      finish();
      // V8 reports a heap past its limit on standard error, then aborts the process.
      if (worker.stderr.includes('heap out of memory'))
        return reject(tooLarge(BRAND_KIT_LIMITS.extractHeapMb));
      // Logged once, with the 500 it becomes (the route's error handler), its standard error included.
      reject(ended(`The brand-kit extractor stopped (${signal ?? `exit code ${code}`}): ${worker.stderr}`));
    };
    const onError = (error: Error) => stop(ended(error.message));
    const finish = () => {
      busy.delete(child);
      clearTimeout(timer);
      unwatch();
      child.off('message', onMessage).off('close', onClose).off('error', onError);
    };
    child.on('message', onMessage).on('close', onClose).on('error', onError);
    child.send({ bytes, timeoutMs } satisfies Job, (error) => {
      if (error) stop(ended(error.message));
    });
  });
}
