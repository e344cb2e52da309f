// OWASP API4 (unrestricted resource consumption) on the routes that take files: each hostile upload
// is refused with a 4xx, within seconds, and the process's resident memory grows by a bounded amount.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { unzipSync, zipSync } from 'fflate';
import * as v from 'valibot';
import { loadHandler } from '../../infra/local/handlers.ts';
import { type LocalServer, startServer } from '../../infra/local/server.ts';
import { routes } from '../../infra/routes.ts';
import { formBody } from '../../shared/http/multipart.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../shared/http/route.ts';
import { avatarTeam } from '../avatars/support.ts';
import { guidelineDocx } from '../brand-kits/fixtures.ts';
import { type CallResult, type Harness, startHarness } from '../support/harness.ts';
import { figure, startExposureScan, within } from './support.ts';

const MiB = 1024 * 1024;
const GENERATE = '/api/v1/brand-kits/generate-from-upload';
/** Loose on purpose (GC timing): a route that buffered or inflated a bomb would grow by far more. */
const RSS_BUDGET_MB = 200;
const SECONDS_BUDGET = 12;

let h: Harness;
let scan: ReturnType<typeof startExposureScan>;
let avatarUpload: string;
const figures: Record<string, { status: number; ms: number; rss_growth_mb: number }> = {};

before(async () => {
  h = await startHarness();
  scan = startExposureScan();
  avatarUpload = `/api/v1/teams/${await avatarTeam(h.owner.id)}/avatar/upload`;
});
after(async () => {
  scan.stop();
  figure('upload abuse', figures);
  await h.close();
});

const boundary = 'hardening0b7a';
const CT = { 'content-type': `multipart/form-data; boundary=${boundary}` };
const filePart = (content: Uint8Array | string, filename: string, type: string, name = 'file') =>
  Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    Buffer.from(content),
    Buffer.from('\r\n'),
  ]);
const dispositionPart = (parameters: string, value: string) =>
  Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; ${parameters}\r\n\r\n${value}\r\n`);
const textPart = (name: string, value: string) => dispositionPart(`name="${name}"`, value);
const close = Buffer.from(`--${boundary}--\r\n`);
const form = (...parts: Buffer[]) => Buffer.concat([...parts, close]);

/** Calls the route while sampling RSS every 5 ms; asserts a 4xx within the budgets. */
async function refused(title: string, url: string, body: Buffer, expected: number[]): Promise<CallResult> {
  global.gc?.();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const t0 = performance.now();
  const res = await within(h.call('POST', url, { body, headers: CT }), SECONDS_BUDGET, title);
  const ms = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  const growth = Math.round(((peak - baseline) / MiB) * 10) / 10;
  figures[title] = { status: res.status, ms: Math.round(ms), rss_growth_mb: growth };
  assert.ok(expected.includes(res.status), `${title}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.ok(ms < SECONDS_BUDGET * 1000, `${title}: took ${Math.round(ms)} ms`);
  assert.ok(growth < RSS_BUDGET_MB, `${title}: RSS grew by ${growth} MB`);
  return res;
}

/** A PDF written by hand: the objects given, an xref table, a trailer. */
function rawPdf(objects: string[], root = 1): Buffer {
  let out = '%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${root} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Uncaught exceptions would take a Lambda runtime down: none may happen while this suite runs. */
const uncaught: Error[] = [];
process.on('uncaughtException', (error) => uncaught.push(error));

/** Settles within a second, or reports a hang (the invocation would sit until its timeout). */
const settles = (work: Promise<unknown>) =>
  Promise.race([
    work.then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise((resolve) => setTimeout(() => resolve('hung'), 1000).unref()),
  ]);

describe('upload abuse', () => {
  it('the routes that take files are the ones tested here', () => {
    // A new file route must be added to this suite: the list is compared with the route table.
    const fileRoutes = routes.filter((r) => /upload/.test(r.path)).map((r) => r.path);
    assert.deepEqual(
      fileRoutes.sort(),
      [GENERATE, '/api/v1/teams/{team_id}/avatar/upload', '/api/v1/uploads'].sort(),
    );
  });

  it('oversize multipart: 413 from the size check, before any parsing', async () => {
    const res = await refused(
      'oversize 6 MiB document',
      GENERATE,
      form(filePart(Buffer.alloc(6 * MiB, 0x25), 'big.pdf', 'application/pdf')),
      [413],
    );
    assert.match(res.body.detail, /too large/);
    await refused(
      'oversize 6 MiB video',
      avatarUpload,
      form(filePart(Buffer.alloc(6 * MiB, 1), 'big.mp4', 'video/mp4', 'video')),
      [413],
    );
  });

  it("a body over the route's declared limit: 413; a route that takes no body ignores one", async () => {
    for (const route of routes.filter((r) => r.method !== 'GET' && r.auth !== false)) {
      const declared = (await loadHandler(route)) as unknown as {
        route?: { maxBodyBytes?: number; body?: unknown; form?: unknown };
      };
      const limit = declared.route?.maxBodyBytes ?? DEFAULT_BODY_LIMIT_BYTES;
      const big = Buffer.from(JSON.stringify({ name: 'x'.repeat(limit) }));
      const url = route.path.replace(/\{\w+\}/g, '01a1fc6e-0000-7000-8000-000000000000');
      const res = await h.call(route.method, url, {
        body: big,
        headers: { 'content-type': 'application/json' },
      });
      const takesBody = Boolean(declared.route?.body || declared.route?.form);
      if (takesBody) assert.equal(res.status, 413, `${route.method} ${route.path}: ${res.status}`);
      else assert.ok(![400, 413].includes(res.status), `${route.method} ${route.path}: ${res.status}`);
    }
  });

  it('oversize through the local server: 413 after at most 10 MiB, memory bounded', async () => {
    const server: LocalServer = await startServer(0);
    try {
      const baseline = process.memoryUsage.rss();
      const chunk = Buffer.alloc(MiB, 0x41);
      const t0 = performance.now();
      // 64 MiB offered in a stream; the server must answer without reading it all into memory.
      const body = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 64; i++) controller.enqueue(chunk);
          controller.close();
        },
      });
      const res = await fetch(`${server.url}${GENERATE}`, {
        method: 'POST',
        headers: { ...CT, authorization: `Bearer ${h.owner.token}` },
        body,
        duplex: 'half',
      } as RequestInit).catch((error: Error) => ({ status: 0, error }));
      const ms = Math.round(performance.now() - t0);
      const growth = Math.round((process.memoryUsage.rss() - baseline) / MiB);
      figures['oversize 64 MiB stream (local server)'] = { status: res.status, ms, rss_growth_mb: growth };
      // 413, or the connection cut once the limit is passed: either way not buffered.
      assert.ok(res.status === 413 || res.status === 0, `status ${res.status}`);
      assert.ok(growth < RSS_BUDGET_MB, `RSS grew by ${growth} MB`);
    } finally {
      await server.close();
    }
  });

  it('wrong magic bytes: 415', async () => {
    const exe = Buffer.concat([Buffer.from('MZ\x90\x00'), Buffer.alloc(4096, 0x90)]);
    await refused(
      'executable named .pdf',
      GENERATE,
      form(filePart(exe, 'guidelines.pdf', 'application/pdf')),
      [415],
    );
    await refused(
      'PNG named .docx',
      GENERATE,
      form(
        filePart(
          Buffer.from('\x89PNG\r\n\x1a\n' + 'x'.repeat(64), 'latin1'),
          'g.docx',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        ),
      ),
      [415],
    );
    await refused(
      'PDF named .mp4',
      avatarUpload,
      form(
        filePart(
          Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(512, 0x20)]),
          'me.mp4',
          'video/mp4',
          'video',
        ),
        textPart('consent_attestation', 'true'),
        textPart('subject_is_minor', 'false'),
        textPart('consent_size', '1024'),
      ),
      [415],
    );
  });

  it('truncated multipart: a 4xx, never a 5xx', async () => {
    const whole = form(filePart(Buffer.alloc(4096, 0x25), 'g.pdf', 'application/pdf'));
    for (const cut of [10, 60, 200, whole.length - 10]) {
      await refused(`truncated at ${cut}`, GENERATE, whole.subarray(0, cut), [400, 413, 415, 422]);
      await refused(`truncated video at ${cut}`, avatarUpload, whole.subarray(0, cut), [400, 413, 415, 422]);
    }
  });

  it('multipart cut anywhere, with or without a close delimiter after it: never hangs, never throws', async () => {
    const parser = formBody(v.any(), { maxFileBytes: MiB });
    const whole = form(
      filePart('%PDF-1.7 body of the file', 'a.pdf', 'application/pdf'),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="x"\r\n\r\nvalue\r\n`),
    ).toString('latin1');
    const tails = [
      '',
      `\r\n--${boundary}--\r\n`,
      `--${boundary}--`,
      `\r\n--${boundary}--`,
      `\r\n\r\n--${boundary}--`,
    ];
    let cases = 0;
    const hung: string[] = [];
    for (let cut = 0; cut <= whole.length; cut++)
      for (const tail of tails) {
        const body = Buffer.from(whole.slice(0, cut) + tail, 'latin1').toString('base64');
        const event = { headers: CT, body, isBase64Encoded: true } as unknown as Parameters<
          typeof parser.parse
        >[0];
        if ((await settles(parser.parse(event))) === 'hung')
          hung.push(JSON.stringify(whole.slice(0, cut) + tail));
        cases++;
      }
    await new Promise((resolve) => setTimeout(resolve, 50)); // busboy reports truncation on a later tick
    figure('multipart truncation cases', cases);
    assert.deepEqual(hung, []);
    assert.deepEqual(
      uncaught.map((e) => e.message),
      [],
    );
  });

  it('a field named like an inherited property as an array (toString[], __proto__[x]), also as name*=: ignored, no crash, no hang', async () => {
    // Middy's parser reads a text part `x[…]` as an item of `x`: on an inherited `x` it threw
    // outside its promise and never settled. FastAPI reads a field of that very name, which no form
    // declares: the form is read without it (here, one missing its required fields).
    const declared: Record<string, string[]> = {
      [GENERATE]: ['file'],
      [avatarUpload]: ['video', 'consent_attestation'],
    };
    for (const name of ['toString[]', '__proto__[x]', 'constructor[prototype]', 'hasOwnProperty[]'])
      for (const parameters of [`name="${name}"`, `name*=utf-8''${encodeURIComponent(name)}`])
        for (const url of [GENERATE, avatarUpload]) {
          const res = await refused(
            `field ${parameters}`,
            url,
            form(dispositionPart(parameters, 'v')),
            [422],
          );
          const fields = res.body.detail.map((error: { loc: string[] }) => error.loc[1]);
          assert.deepEqual(fields, declared[url], `${parameters} on ${url}`);
        }
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(
      uncaught.map((e) => e.message),
      [],
    );
    assert.deepEqual(Object.keys(Object.prototype), []);
  });

  it('thousands of parts and a huge part header: refused quickly', async () => {
    const field = (i: number) =>
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`);
    const many = form(...Array.from({ length: 5000 }, (_, i) => field(i)));
    await refused('5,000 parts', GENERATE, many, [400]);
    await refused('5,000 parts (video)', avatarUpload, many, [400]);
    const hugeHeader = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${'a'.repeat(512 * 1024)}.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\r\n--${boundary}--\r\n`,
    );
    await refused('512 KiB part header', GENERATE, hugeHeader, [400, 413, 415, 422]);
    const manyHeaders = Buffer.concat([
      Buffer.from(`--${boundary}\r\n`),
      ...Array.from({ length: 2000 }, (_, i) => Buffer.from(`X-Junk-${i}: ${'j'.repeat(40)}\r\n`)),
      Buffer.from(
        `Content-Disposition: form-data; name="file"; filename="g.pdf"\r\n\r\n%PDF-1.7\r\n--${boundary}--\r\n`,
      ),
    ]);
    await refused('2,000 part headers', GENERATE, manyHeaders, [400, 413, 415, 422]);
  });

  it('no uncaught exception in the whole suite', () => {
    assert.deepEqual(
      uncaught.map((e) => e.message),
      [],
    );
  });

  it('DOCX zip bomb: refused without inflating it', async () => {
    // 120 MiB of zeros in document.xml deflates to ~120 KiB (past the 50 MiB and 100:1 caps).
    const zeros = new Uint8Array(120 * MiB);
    const bomb = Buffer.from(zipSync({ ...unzipParts(), 'word/document.xml': zeros }, { level: 1 }));
    assert.ok(bomb.length < 4 * MiB, `bomb is ${bomb.length} bytes`);
    await refused(
      'DOCX zip bomb (120 MiB inflated)',
      GENERATE,
      form(
        filePart(
          bomb,
          'bomb.docx',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        ),
      ),
      [413, 415, 422],
    );
  });

  it('PDF with a deeply nested object graph, and with a cyclic one: refused or read, quickly', async () => {
    const depth = 200_000;
    const nested = rawPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Junk ${'<< /A '.repeat(depth)}1${' >>'.repeat(depth)} >>`,
    ]);
    await refused(
      'PDF nested 200,000 dictionaries deep',
      GENERATE,
      form(filePart(nested, 'nested.pdf', 'application/pdf')),
      [200, 415, 422],
    );
    const arrays = rawPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Junk ${'['.repeat(depth)}${']'.repeat(depth)} >>`,
    ]);
    await refused(
      'PDF nested 200,000 arrays deep',
      GENERATE,
      form(filePart(arrays, 'arrays.pdf', 'application/pdf')),
      [200, 415, 422],
    );
    // A page tree whose Kids point back at itself, and a Parent loop.
    const cyclic = rawPdf([
      '<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R >>',
      '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1000000 >>',
      '<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X 3 0 R >> >> >>',
      '<< /Type /Outlines /First 5 0 R /Last 5 0 R >>',
      '<< /Title (loop) /Parent 4 0 R /Next 5 0 R /Prev 5 0 R /First 5 0 R >>',
    ]);
    await refused(
      'PDF with cyclic page tree and outline',
      GENERATE,
      form(filePart(cyclic, 'cyclic.pdf', 'application/pdf')),
      [200, 415, 422],
    );
  });

  it('PDF that is only a huge image: refused or read without decoding it all', async () => {
    // A 20,000 × 20,000 RGB image (1.2 GB decoded) of zeros: ~1.2 MB deflated.
    const side = 20_000;
    const pixels = deflateSync(Buffer.alloc(side * side * 3), { level: 9 });
    const pdf = Buffer.concat([
      Buffer.from(
        '%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>\nendobj\n',
        'latin1',
      ),
      Buffer.from(
        `4 0 obj\n<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length ${pixels.length} >>\nstream\n`,
        'latin1',
      ),
      pixels,
      Buffer.from(
        '\nendstream\nendobj\n5 0 obj\n<< /Length 35 >>\nstream\nq 612 0 0 792 0 0 cm /Im0 Do Q\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
        'latin1',
      ),
    ]);
    assert.ok(pdf.length < 4 * MiB, `${pdf.length} bytes`);
    await refused(
      'PDF of one 20,000² image',
      GENERATE,
      form(filePart(pdf, 'image.pdf', 'application/pdf')),
      [200, 413, 415, 422],
    );
  });
});

/** The parts of a valid DOCX besides its document (so the bomb is a plausible Word file). */
function unzipParts(): Record<string, Uint8Array> {
  const parts = unzipSync(guidelineDocx());
  delete parts['word/document.xml'];
  return parts;
}
