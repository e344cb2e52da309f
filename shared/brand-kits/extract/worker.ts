// Extraction in a worker thread, so that its deadline and a memory limit hold whatever the document.
// The readers and the drafting rules are synchronous and read the clock only between their steps: in
// the function's own thread an 18 MB DOCX of plain text held it for 16 s of a 10 s deadline and used
// 1.4 GB of its 1.5 GB. A worker is terminated at the deadline and stopped at its heap limit; either
// way the caller answers 422, and the function (the local server: every other request) carries on.
//
// This file is the worker's entry as well as its owner's: a function ships as one bundled file, and
// the worker loads that same file, which serves jobs when it starts in a worker marked as ours.
import { isMainThread, type MessagePort, parentPort, Worker, workerData } from 'node:worker_threads';
import { BRAND_KIT_LIMITS } from '../schemas.ts';
import { type BrandKitExtraction, DocumentError, type DocumentErrorKind, timedOut } from './types.ts';

const ROLE = 'brand-kit-extractor';
/** Starting a worker (and loading pdf.js in it) may take this long before the document's deadline starts. */
export const WORKER_START_MS = 5_000;
/** How far past the document's deadline a worker may run before it is terminated: its own check's slack. */
const GRACE_MS = 250;

interface Job {
  bytes: Uint8Array;
  timeoutMs: number;
}
type Reply =
  | { started: true }
  | { extraction: BrandKitExtraction }
  | { refused: { kind: DocumentErrorKind; message: string } }
  | { fault: string };

if (!isMainThread && workerData?.role === ROLE && parentPort) serve(parentPort);

function serve(port: MessagePort): void {
  port.on('message', async ({ bytes, timeoutMs }: Job) => {
    const reply = (message: Reply) => port.postMessage(message);
    try {
      const { extractBrandKit } = await import('./index.ts');
      const onStart = () => reply({ started: true });
      reply({ extraction: await extractBrandKit(bytes, { timeoutMs, onStart }) });
    } catch (error) {
      if (error instanceof DocumentError) reply({ refused: { kind: error.kind, message: error.message } });
      else reply({ fault: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
}

const idle: Worker[] = [];

function spawn(): Worker {
  const self = new URL(import.meta.url);
  const options = {
    workerData: { role: ROLE },
    // The worker needs none of the parent's flags (a test runner's hooks, a profiler).
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: BRAND_KIT_LIMITS.extractHeapMb },
  };
  // From TypeScript sources (npm start, the tests) the worker registers tsx itself: Node.js 20 does
  // not pass a loader's hooks on to workers. A bundle (.mjs) is plain JavaScript.
  const worker = self.pathname.endsWith('.ts')
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})` +
          `.then((tsx) => (tsx.register(), import(${JSON.stringify(self.href)})));`,
        { ...options, eval: true },
      )
    : new Worker(self, options);
  // An idle worker that fails is dropped; a busy one's failure is its job's (extractInWorker).
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
  });
  return worker;
}

/** Keeps a worker for the next document, as many as may read at once (on Lambda, one). */
function release(worker: Worker): void {
  if (idle.length >= BRAND_KIT_LIMITS.extractConcurrency) {
    void worker.terminate();
    return;
  }
  worker.unref();
  idle.push(worker);
}

let reading = 0;
const waiting: (() => void)[] = [];

/** A turn to read a document: at most BRAND_KIT_LIMITS.extractConcurrency at once, first come first
 * served. Past the machine's cores, workers would share them and each document lose its deadline's time. */
async function turn(): Promise<() => void> {
  if (reading < BRAND_KIT_LIMITS.extractConcurrency) reading++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  // The turn passes to the next in line as it is, or ends.
  return () => {
    const next = waiting.shift();
    if (next) next();
    else reading--;
  };
}

/**
 * `extractBrandKit` in a worker thread: the same answer or DocumentError, plus 'timeout' when the
 * worker has to be stopped at the deadline and 'too_large' when the document needs more memory than
 * BRAND_KIT_LIMITS.extractHeapMb. A worker that breaks down (or cannot load the parser) is an Error.
 * A document waits for its turn (`turn`); its deadline starts once its worker has started reading.
 */
export async function extractInWorker(
  bytes: Uint8Array,
  options: { timeoutMs: number },
): Promise<BrandKitExtraction> {
  const done = await turn();
  try {
    return await readInWorker(bytes, options);
  } finally {
    done();
  }
}

function readInWorker(bytes: Uint8Array, { timeoutMs }: { timeoutMs: number }): Promise<BrandKitExtraction> {
  const worker = idle.pop() ?? spawn();
  worker.ref();
  return new Promise((resolve, reject) => {
    const stop = (error: Error) => {
      finish();
      void worker.terminate();
      reject(error);
    };
    let timer = setTimeout(
      () => stop(new Error(`The brand-kit extractor did not start within ${WORKER_START_MS} ms.`)),
      WORKER_START_MS,
    );
    const onMessage = (message: Reply) => {
      if ('started' in message) {
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
    const onError = (error: Error & { code?: string }) => {
      finish();
      reject(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new DocumentError(
              'too_large',
              `Reading the document needs more than ${BRAND_KIT_LIMITS.extractHeapMb} MB of memory.`,
            )
          : error,
      );
    };
    const onExit = (code: number) => {
      finish();
      reject(new Error(`The brand-kit extractor stopped (exit code ${code}).`));
    };
    const finish = () => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage({ bytes, timeoutMs } satisfies Job);
  });
}
