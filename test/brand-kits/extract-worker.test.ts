// The extractor's worker thread (shared/brand-kits/extract/worker.ts), which generate-from-upload reads
// every document in: the drafts the extractor gives in-process, a heap limit that refuses a document
// instead of taking the process down, a deadline that does not count the worker's start, and the
// caller's thread left free while a document is read.
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import {
  type BrandKitExtraction,
  DocumentError,
  extractBrandKit,
} from '../../shared/brand-kits/extract/index.ts';
import { extractInWorker, WORKER_START_MS } from '../../shared/brand-kits/extract/worker.ts';
import { BRAND_KIT_LIMITS } from '../../shared/brand-kits/schemas.ts';
import { guidelineDocx, guidelinePdf, paragraph } from './fixtures.ts';

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

/** The extraction less its timing, which differs from run to run. */
const withoutMs = ({ stats: { ms: _ms, ...stats }, ...rest }: BrandKitExtraction) => ({ ...rest, stats });

describe('brand-kit extraction in a worker thread', () => {
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

  test('a worker still reading at its deadline is stopped there: no clock check of its own is waited for', async () => {
    // The worker's own deadline is a minute away, so only the caller's timer can stop it. Timers are
    // recorded, not run, until the worker has reported its start; then the deadline's timer is fired
    // while the worker reads (about a second of work), as the clock would at the deadline.
    const timers: { callback: () => void; ms: number }[] = [];
    const recorded = mock.method(globalThis, 'setTimeout', ((callback: () => void, ms: number) => {
      timers.push({ callback, ms });
      return { unref() {}, ref() {} };
    }) as unknown as typeof setTimeout);
    let reading: Promise<unknown>;
    let deadline: (typeof timers)[number] | undefined;
    try {
      reading = extractInWorker(fontParagraphsDocx(40_000), { timeoutMs: TIMEOUT_MS });
      reading.catch(() => undefined);
      // The deadline's timer (its delay: the deadline and the grace) is set when the worker starts.
      for (;;) {
        deadline = timers.find(({ ms }) => ms > TIMEOUT_MS);
        if (deadline) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      recorded.mock.restore();
    }
    deadline.callback();
    await assert.rejects(reading, refusedAs('timeout', `longer than ${TIMEOUT_MS} ms`));
  });

  test('starting a worker and loading pdf.js in it do not count against the deadline', async () => {
    // A mocked clock passes the whole deadline (and more) before the worker can have started; the
    // deadline's timer starts when the worker reports that the document's reading has begun. Two
    // documents, so that one of them starts a worker whatever the earlier tests left idle.
    const pdf = await guidelinePdf();
    mock.timers.enable({ apis: ['setTimeout'] });
    let reading: Promise<BrandKitExtraction[]>;
    try {
      reading = Promise.all([
        extractInWorker(pdf, { timeoutMs: 1_000 }),
        extractInWorker(pdf, { timeoutMs: 1_000 }),
      ]);
      // Past the deadline and its grace, short of the time a worker is given to start.
      mock.timers.tick(WORKER_START_MS - 1);
    } finally {
      mock.timers.reset();
    }
    for (const { draft } of await reading) assert.equal(draft.primary_color, '#E4572E');
  });
});
