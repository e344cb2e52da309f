// The extractor's worker process (shared/brand-kits/extract/worker.ts), which generate-from-upload reads
// every document in: the drafts the extractor gives in-process, a heap limit that refuses a document
// instead of taking the function down (also under Lambda's own --max-old-space-size), a bound on the
// worker's whole memory (what pdf.js decodes is not on the heap), a deadline that
// does not count the worker's start, turns past the concurrency, the caller's thread left free, a
// worker killed at its deadline, and workers that die (reading: an error; idle: replaced).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, mock, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  type BrandKitExtraction,
  DocumentError,
  extractBrandKit,
} from '../../shared/brand-kits/extract/index.ts';
import { extractInWorker, WORKER_START_MS } from '../../shared/brand-kits/extract/worker.ts';
import { BRAND_KIT_LIMITS } from '../../shared/brand-kits/schemas.ts';
import { ServiceUnavailableError } from '../../shared/http/errors.ts';
import { fontPagesPdf, guidelineDocx, guidelinePdf, inflatingPdf, paragraph } from './fixtures.ts';

const TIMEOUT_MS = 60_000;

/** A DOCX of `count` paragraphs naming fonts: about a second of reading for 20,000. */
const fontParagraphsDocx = (count: number) =>
  guidelineDocx({
    body: Array.from({ length: count }, (_, i) =>
      paragraph(`Use Poppins for headings and Work Sans ${i} for body text.`),
    ).join(''),
    withLogo: false,
  });

const refusedAs = (kind: DocumentError['kind'], text: string) => (error: unknown) => {
  assert.ok(error instanceof DocumentError, `expected DocumentError, got ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  assert.match(error.message, new RegExp(text));
  return true;
};

/** setTimeout recorded, not run: a test fires a timer itself, as the clock would. `events` lists the
 * timers set and cleared, in order. */
function recordTimers() {
  const timers: { callback: () => void; ms: number }[] = [];
  const events: string[] = [];
  const realClear = globalThis.clearTimeout;
  const set = mock.method(globalThis, 'setTimeout', ((callback: () => void, ms: number) => {
    const timer = { callback, ms };
    timers.push(timer);
    events.push(`set ${ms}`);
    return timer;
  }) as unknown as typeof setTimeout);
  const clear = mock.method(globalThis, 'clearTimeout', ((handle: unknown) => {
    const timer = timers.find((t) => t === handle);
    if (!timer) return realClear(handle as NodeJS.Timeout);
    events.push(`clear ${timer.ms}`);
  }) as typeof clearTimeout);
  const restore = () => {
    set.mock.restore();
    clear.mock.restore();
  };
  return { timers, events, restore };
}

/** Runs an ES module's code in a fresh Node.js process under tsx, with `flags`: its standard output. */
function runScript(code: string, flags: string[] = [], env: NodeJS.ProcessEnv = process.env): string {
  const run = spawnSync(
    process.execPath,
    [...flags, '--import', 'tsx', '--input-type=module', '--eval', code],
    {
      encoding: 'utf8',
      env,
      timeout: 120_000,
    },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}
const at = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);

/** Turns of the event loop (no timer) until `found` finds something; fails if `reading` ends first. */
async function until<T>(found: () => T | undefined, reading: Promise<unknown>): Promise<T> {
  let ended = false;
  reading.then(
    () => {
      ended = true;
    },
    () => {
      ended = true;
    },
  );
  for (;;) {
    const value = found();
    if (value !== undefined) return value;
    if (ended) throw new Error(`the reading ended first: ${await reading.catch(String)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The extractor's worker processes of this process (Linux: /proc), by the mark in their environment. */
const workerProcesses = () =>
  readdirSync('/proc/self/task')
    .flatMap((task) => readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(/\s+/).filter(Boolean))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes('BRAND_KIT_EXTRACTOR=1');
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);

/** Waits until one of the processes `pids` has ended; fails if all still run `ms` on. */
async function oneEnds(pids: number[], ms = 2_000): Promise<void> {
  assert.ok(pids.length > 0, 'no worker process');
  const until = Date.now() + ms;
  while (pids.every((pid) => workerProcesses().includes(pid))) {
    assert.ok(Date.now() < until, `processes ${pids.join(', ')} all still run ${ms} ms on`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The extraction less its timing, which differs from run to run. */
const withoutMs = ({ stats: { ms: _ms, ...stats }, ...rest }: BrandKitExtraction) => ({ ...rest, stats });

describe('brand-kit extraction in a worker process', () => {
  // First in the file: the worker it starts is the process's first, so it starts under this limit.
  test('a document that needs more than the heap limit is refused, and the next one is read', async () => {
    const limits = BRAND_KIT_LIMITS as { extractHeapMb: number };
    const limit = limits.extractHeapMb;
    limits.extractHeapMb = 48;
    try {
      // 100,000 paragraphs: their lines and words pass 48 MB (the service's limit is 768 MB).
      await assert.rejects(
        extractInWorker(fontParagraphsDocx(100_000), { timeoutMs: TIMEOUT_MS }),
        refusedAs('too_large', 'needs more than 48 MB of memory'),
      );
    } finally {
      limits.extractHeapMb = limit;
    }
    const next = await extractInWorker(guidelineDocx(), { timeoutMs: TIMEOUT_MS });
    assert.equal(next.draft.name, 'Globex');
  });

  test("the heap limit holds under the function's own --max-old-space-size, as Lambda starts Node.js", () => {
    // Lambda runs Node.js with --max-old-space-size at 90% of the function's memory, which a worker
    // thread's resourceLimits gave way to (the 48 MB document below was read whole in a thread).
    const output = runScript(
      `
      import { extractInWorker } from ${at('../../shared/brand-kits/extract/worker.ts')};
      import { BRAND_KIT_LIMITS } from ${at('../../shared/brand-kits/schemas.ts')};
      import { guidelineDocx, paragraph } from ${at('./fixtures.ts')};
      BRAND_KIT_LIMITS.extractHeapMb = 48;
      const body = Array.from({ length: 100_000 }, (_, i) =>
        paragraph('Use Poppins for headings and Work Sans ' + i + ' for body text.')).join('');
      await extractInWorker(guidelineDocx({ body, withLogo: false }), { timeoutMs: 60_000 }).then(
        () => console.log('read'),
        (error) => console.log(error.kind ?? error.message),
      );`,
      ['--max-old-space-size=1400'],
    );
    assert.equal(output, 'too_large');
  });

  /** Reads `pdf` with the resident-memory budget lowered to `budgetMb`, and gives `then` the reading
   * and the worker processes there were once it had begun. */
  const readingWithBudget = async <T>(
    budgetMb: number,
    pdf: Uint8Array,
    then: (reading: Promise<BrandKitExtraction>, workers: number[]) => Promise<T>,
  ) => {
    const limits = BRAND_KIT_LIMITS as { extractResidentMb: number };
    const budget = limits.extractResidentMb;
    limits.extractResidentMb = budgetMb;
    try {
      const reading = extractInWorker(pdf, { timeoutMs: TIMEOUT_MS });
      // The reading worker: a kept one or, when none is kept, the one started for it.
      const workers = await until(() => {
        const pids = workerProcesses();
        return pids.length > 0 ? pids : undefined;
      }, reading);
      return await then(reading, workers);
    } finally {
      limits.extractResidentMb = budget;
    }
  };

  test('a document whose decoded streams pass the memory budget is refused, its worker killed, and the next one is read', async () => {
    // The heap limit does not count the ArrayBuffers pdf.js decodes streams into: a 0.5 MB PDF whose
    // page inflates to 512 MiB of blanks, against a budget lowered to 300 MB (1,024 MB in service,
    // where the audit's 1 MB PDF inflating to 1 GiB took a worker past 1.9 GB before its deadline).
    await readingWithBudget(300, await inflatingPdf(512), async (reading, workers) => {
      await assert.rejects(reading, refusedAs('too_large', 'needs more than 300 MB of memory'));
      await oneEnds(workers);
      // A document's reading stays far below the budget.
      const next = await extractInWorker(await guidelinePdf(), { timeoutMs: TIMEOUT_MS });
      assert.equal(next.draft.primary_color, '#E4572E');
    });
  });

  test('a worker that grew past half the memory budget reading a document is not kept for the next', async () => {
    // A page inflating to 160 MiB of blanks is read (it has no brand text: refused as such), but the
    // worker keeps much of what it grew to: past half a budget lowered to 600 MB, it is let go.
    await readingWithBudget(600, await inflatingPdf(160), async (reading, workers) => {
      await assert.rejects(
        reading,
        (error: unknown) => error instanceof DocumentError && error.kind !== 'too_large',
      );
      await oneEnds(workers);
    });
  });

  test('the worker holds none of the function’s credentials', () => {
    // Read from /proc (Linux): the environment the worker process was started with.
    const output = runScript(
      `
      import { readdirSync, readFileSync } from 'node:fs';
      import { extractInWorker } from ${at('../../shared/brand-kits/extract/worker.ts')};
      import { guidelineDocx } from ${at('./fixtures.ts')};
      await extractInWorker(guidelineDocx(), { timeoutMs: 60_000 });
      const workers = readdirSync('/proc/self/task').flatMap((task) =>
        readFileSync('/proc/self/task/' + task + '/children', 'utf8').split(/\\s+/).filter(Boolean));
      const environments = workers.map((pid) => readFileSync('/proc/' + pid + '/environ', 'utf8'));
      console.log(JSON.stringify(environments.map((env) => env.split('\\0').map((entry) => entry.split('=')[0]).sort())));`,
      [],
      { ...process.env, AWS_SECRET_ACCESS_KEY: 'a-secret', TABLE_NAME: 'team-content' },
    );
    const [names] = JSON.parse(output) as string[][];
    assert.ok(names?.includes('BRAND_KIT_EXTRACTOR'), output);
    assert.deepEqual(
      names?.filter((name) => /^AWS_|TABLE_NAME/.test(name)),
      [],
      output,
    );
  });

  test('a kept worker that dies reading is an error carrying its last words, not read again; the next document is', () => {
    // The death is injected into the worker's runtime, not into our code: a module NODE_OPTIONS preloads
    // (the worker keeps NODE_OPTIONS) notes each document a worker begins to read, and ends the first
    // worker when it has read its second document, before it answers. (Not by a 'message' listener of
    // its own: one added before the worker's makes the channel deliver the document before the worker
    // listens.)
    const dir = mkdtempSync(join(tmpdir(), 'extractor-crash-'));
    const preload = join(dir, 'die.mjs');
    writeFileSync(
      preload,
      `import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
      const [sent, died] = ${JSON.stringify([join(dir, 'sent'), join(dir, 'died')])};
      if (process.env.BRAND_KIT_EXTRACTOR === '1') {
        let answered = 0;
        const send = process.send;
        process.send = function (message, ...rest) {
          if ('started' in message) appendFileSync(sent, process.pid + '\\n');
          if ('extraction' in message && ++answered === 2 && !existsSync(died)) {
            writeFileSync(died, '');
            process.stderr.write('an injected fault\\n');
            process.exit(3);
          }
          return send.call(this, message, ...rest);
        };
      }`,
    );
    try {
      const output = runScript(
        `
        import { extractInWorker } from ${at('../../shared/brand-kits/extract/worker.ts')};
        import { guidelineDocx } from ${at('./fixtures.ts')};
        const read = () => extractInWorker(guidelineDocx(), { timeoutMs: 60_000 }).then(
          (extraction) => extraction.draft.name,
          (error) => error.constructor.name + ': ' + error.message,
        );
        console.log(JSON.stringify([await read(), await read(), await read()]));`,
        [],
        { ...process.env, NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` },
      );
      const [first, died, next] = JSON.parse(output) as string[];
      assert.deepEqual([first, next], ['Globex', 'Globex']);
      assert.match(died!, /^Error: The brand-kit extractor stopped \(exit code 3\): an injected fault/);
      // The second document went to the kept worker only (a worker that dies reading is no idle death
      // to retry elsewhere); the third, to a new one.
      const [a, b, c, ...more] = readFileSync(join(dir, 'sent'), 'utf8').trim().split('\n');
      assert.deepEqual([a === b, b === c, more], [true, false, []]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a worker that died idle is replaced, even before its end has been noticed', async () => {
    await extractInWorker(guidelineDocx(), { timeoutMs: TIMEOUT_MS });
    const idle = workerProcesses();
    assert.ok(idle.length > 0, 'no idle worker');
    // Killed, and the next document sent in the same turn of the event loop: it meets a closed pipe.
    for (const pid of idle) process.kill(pid, 'SIGKILL');
    const next = await extractInWorker(guidelineDocx(), { timeoutMs: TIMEOUT_MS });
    assert.equal(next.draft.name, 'Globex');
    // Again, the event loop held until the killed workers are gone: the send then meets a dead pipe
    // (EPIPE), and which of its failure and the workers' end is handled first varies from run to run.
    const kept = workerProcesses();
    for (const pid of kept) process.kill(pid, 'SIGKILL');
    const until = Date.now() + 5_000;
    const dead = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
      } catch {
        return true;
      }
    };
    while (!kept.every(dead)) assert.ok(Date.now() < until, 'the killed workers still run');
    const after = await extractInWorker(guidelineDocx(), { timeoutMs: TIMEOUT_MS });
    assert.equal(after.draft.name, 'Globex');
  });

  test('drafts what the extractor drafts in-process, two documents at once, logos included', async () => {
    const [pdf, docx] = [await guidelinePdf(), guidelineDocx()];
    const [fromPdf, fromDocx] = await Promise.all([
      extractInWorker(pdf, { timeoutMs: TIMEOUT_MS }),
      extractInWorker(docx, { timeoutMs: TIMEOUT_MS }),
    ]);
    assert.deepEqual(withoutMs(fromPdf), withoutMs(await extractBrandKit(pdf)));
    assert.deepEqual(withoutMs(fromDocx), withoutMs(await extractBrandKit(docx)));
    assert.ok(fromDocx.logos.length > 0 && fromDocx.logos.every((logo) => logo.png.length > 0));
  });

  test('documents past the concurrency wait their turn, their deadline not counting the wait', async () => {
    // One at a time: the small DOCX, sent second with a deadline shorter than the long one's reading,
    // is read after it and in full. Each in a worker of its own, it finished first.
    const limits = BRAND_KIT_LIMITS as { extractConcurrency: number };
    const concurrency = limits.extractConcurrency;
    limits.extractConcurrency = 1;
    const finished: string[] = [];
    try {
      const long = extractInWorker(fontParagraphsDocx(40_000), { timeoutMs: TIMEOUT_MS }).then((x) => {
        finished.push('long');
        return x;
      });
      const small = extractInWorker(guidelineDocx(), { timeoutMs: 500 }).then((x) => {
        finished.push('small');
        return x;
      });
      assert.equal((await small).draft.name, 'Globex');
      await long;
    } finally {
      limits.extractConcurrency = concurrency;
    }
    assert.deepEqual(finished, ['long', 'small']);
  });

  test('a turn that comes too late to read the document before the function must answer is a 503', {
    timeout: 120_000,
  }, async () => {
    // The deadline is not cut to what the wait left (a 422 would blame the document): the service is
    // busy, and says so with Retry-After.
    const limits = BRAND_KIT_LIMITS as { extractConcurrency: number };
    const concurrency = limits.extractConcurrency;
    limits.extractConcurrency = 1;
    try {
      const long = extractInWorker(fontParagraphsDocx(40_000), { timeoutMs: TIMEOUT_MS });
      const late = extractInWorker(guidelineDocx(), {
        timeoutMs: 500,
        endsAt: Date.now() + WORKER_START_MS + 1_000,
      });
      await assert.rejects(late, (error: unknown) => {
        assert.ok(error instanceof ServiceUnavailableError, String(error));
        assert.ok(Number(error.headers['retry-after']) >= 1);
        return true;
      });
      await long;
      // The refused document gave its turn back: the next one is read (it waited for ever before).
      assert.equal((await extractInWorker(guidelineDocx(), { timeoutMs: TIMEOUT_MS })).draft.name, 'Globex');
    } finally {
      limits.extractConcurrency = concurrency;
    }
  });

  test('the caller’s thread is free while a document is read', async () => {
    // In the caller's thread the DOCX reader and the drafting rules hold it from start to end: a
    // timer set beside them fired only after them (the local server answered nothing meanwhile).
    const reading = extractInWorker(fontParagraphsDocx(20_000), { timeoutMs: TIMEOUT_MS }).then(() => 'read');
    const timer = new Promise((resolve) => setTimeout(resolve, 20, 'timer'));
    assert.equal(await Promise.race([reading, timer]), 'timer');
    assert.equal(await reading, 'read');
  });

  test('a document read past its deadline is refused, and the next one is read', async () => {
    await assert.rejects(
      extractInWorker(fontParagraphsDocx(20_000), { timeoutMs: 200 }),
      refusedAs('timeout', 'longer than 200 ms'),
    );
    const next = await extractInWorker(guidelineDocx(), { timeoutMs: TIMEOUT_MS });
    assert.equal(next.draft.name, 'Globex');
  });

  test('a worker that refuses a document at its own deadline is not kept: it may still be finishing abandoned reads', async () => {
    // A PDF is read between awaits: the worker's own timer refuses it at 20 ms, before the caller's
    // (250 ms later) would kill it. Sixty pages take far longer than 20 ms to read on any machine.
    const reading = extractInWorker(await fontPagesPdf(60), { timeoutMs: 20 });
    reading.catch(() => undefined);
    // Its worker, once running (a new one may take a moment to start).
    let workers = workerProcesses();
    for (
      const until = Date.now() + 5_000;
      workers.length === 0 && Date.now() < until;
      workers = workerProcesses()
    )
      await new Promise((resolve) => setTimeout(resolve, 2));
    await assert.rejects(reading, refusedAs('timeout', 'longer than 20 ms'));
    await oneEnds(workers);
  });

  test('a worker still reading at its deadline is stopped there: no clock check of its own is waited for', async () => {
    // The worker's own deadline is a minute away, so only the caller's timer can stop it: it is fired
    // once set (when the worker reports its start) while the worker reads, as the clock would.
    const { timers, restore } = recordTimers();
    let reading: Promise<unknown>;
    let deadline: (typeof timers)[number];
    try {
      reading = extractInWorker(fontParagraphsDocx(40_000), { timeoutMs: TIMEOUT_MS });
      reading.catch(() => undefined);
      deadline = await until(() => timers.find(({ ms }) => ms > TIMEOUT_MS), reading);
    } finally {
      restore();
    }
    // Killed: one of this process's workers (the busy one) is gone long before it could have read on.
    const workers = workerProcesses();
    deadline.callback();
    await assert.rejects(reading, refusedAs('timeout', `longer than ${TIMEOUT_MS} ms`));
    await oneEnds(workers);
  });

  test('a worker that does not start in time is a 503 with Retry-After (a busy machine), and the next document is read', async () => {
    // Seen on a local server under heavy load: the start timer fired and the send answered a bare 500.
    const { timers, restore } = recordTimers();
    let reading: Promise<unknown>;
    try {
      reading = extractInWorker(guidelineDocx(), { timeoutMs: TIMEOUT_MS });
      reading.catch(() => undefined);
      const start = await until(() => timers.find(({ ms }) => ms === WORKER_START_MS), reading);
      start.callback();
    } finally {
      restore();
    }
    await assert.rejects(reading, (error: unknown) => {
      assert.ok(error instanceof ServiceUnavailableError, String(error));
      assert.equal(error.headers['retry-after'], '1');
      return true;
    });
    assert.equal((await extractInWorker(guidelineDocx(), { timeoutMs: TIMEOUT_MS })).draft.name, 'Globex');
  });

  test('what can be no document is refused at once, without waiting for a turn or a worker', async () => {
    const limits = BRAND_KIT_LIMITS as { extractConcurrency: number };
    const concurrency = limits.extractConcurrency;
    limits.extractConcurrency = 1;
    try {
      // The only turn is taken: a text file and an empty one are refused while it is read.
      const long = extractInWorker(fontParagraphsDocx(40_000), { timeoutMs: TIMEOUT_MS }).then(() => 'read');
      const refused = Promise.allSettled([
        extractInWorker(new TextEncoder().encode('just some notes'), { timeoutMs: TIMEOUT_MS }),
        extractInWorker(new Uint8Array(0), { timeoutMs: TIMEOUT_MS }),
      ]).then((outcomes) => outcomes.map((outcome) => outcome.status === 'rejected' && outcome.reason));
      const [first, [text, empty]] = await Promise.race([
        refused.then((r) => ['refused', r] as const),
        long.then((r) => [r, []] as const),
      ]);
      assert.equal(first, 'refused');
      refusedAs('unsupported', 'neither a PDF nor a Word')(text);
      refusedAs('invalid', 'The file is empty')(empty);
      await long;
    } finally {
      limits.extractConcurrency = concurrency;
    }
  });

  test('the deadline starts when the worker reports its reading has begun, not when the document is sent', async () => {
    // A document's first timer is the worker's start allowance; it is cleared, and the deadline's set,
    // when the worker reports its reading has begun (after pdf.js has loaded in it).
    const pdf = await guidelinePdf();
    const { timers, events, restore } = recordTimers();
    let reading: Promise<BrandKitExtraction>;
    try {
      reading = extractInWorker(pdf, { timeoutMs: TIMEOUT_MS });
      reading.catch(() => undefined);
      await until(() => timers.find(({ ms }) => ms > TIMEOUT_MS), reading);
    } finally {
      restore();
    }
    assert.deepEqual(events, [`set ${WORKER_START_MS}`, `clear ${WORKER_START_MS}`, `set ${timers[1]?.ms}`]);
    assert.ok(timers[1]!.ms > TIMEOUT_MS);
    assert.equal((await reading).draft.primary_color, '#E4572E');
  });
});
