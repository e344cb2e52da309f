// npm run docs:screenshot: serves the API on a free port over temporary stores and has headless
// Chromium (Debian's `chromium` package) render /docs to docs/docs-screenshot.png.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startEmbeddedAws } from '../infra/local/embedded.ts';
import { startServer } from '../infra/local/server.ts';

process.env.LOG_LEVEL ||= 'silent'; // empty is unset, as for PORT and DATA_DIR
const browser = process.env.CHROMIUM ?? '/usr/bin/chromium';
// A path must name a file; a bare command (CHROMIUM=chromium-browser) is found on PATH by execFile.
if (browser.includes('/') && !existsSync(browser)) {
  console.error(`no Chromium at ${browser}: install Debian's chromium package, or set CHROMIUM to one`);
  process.exit(1);
}
const profile = await mkdtemp(join(tmpdir(), 'tcs-chromium-'));
const aws = await startEmbeddedAws();
const server = await startServer(0);
try {
  // Asynchronously: the server answering Chromium runs in this same process.
  await promisify(execFile)(
    browser,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      '--window-size=1280,2000',
      '--virtual-time-budget=8000',
      '--screenshot=docs/docs-screenshot.png',
      `${server.url}/docs`,
    ],
    { timeout: 60_000 },
  );
  console.log('wrote docs/docs-screenshot.png');
} finally {
  await server.close();
  await aws.close();
  await rm(profile, { recursive: true, force: true });
}
