// One brand-guideline document in a fresh process: the first extraction (the parser modules load
// then, as in a new Lambda container), three more warm, and the process's peak resident memory.
// With --worker, through the worker process the service reads documents in: its CPU time and peak
// memory are added to this process's (read from /proc: Linux only).
import { readdirSync, readFileSync } from 'node:fs';
import { extractBrandKit } from '../../shared/brand-kits/extract/index.ts';
import { extractInWorker } from '../../shared/brand-kits/extract/worker.ts';
import { BRAND_KIT_LIMITS } from '../../shared/brand-kits/schemas.ts';
import { reply } from '../lib/child.ts';
import { median } from '../lib/stats.ts';

const bytes = new Uint8Array(readFileSync(process.argv[2]!));
const extract = process.argv.includes('--worker')
  ? (document: Uint8Array) => extractInWorker(document, { timeoutMs: BRAND_KIT_LIMITS.extractMs })
  : extractBrandKit;
const baselineMb = process.memoryUsage().rss / 1048576;

/** The processes this one started (the extractor's workers): CPU milliseconds and peak resident MB. */
function workers(): { cpuMs: number; peakMb: number } {
  const pids = readdirSync('/proc/self/task').flatMap((task) =>
    readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(/\s+/).filter(Boolean),
  );
  let cpuMs = 0;
  let peakMb = 0;
  for (const pid of pids) {
    // utime and stime, the 14th and 15th fields, in clock ticks (100 a second on Linux).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    cpuMs += (Number(fields[11]) + Number(fields[12])) * 10;
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    peakMb += Number(hwm?.[1] ?? 0) / 1024;
  }
  return { cpuMs, peakMb };
}

async function once() {
  const cpu = process.cpuUsage();
  const workersBefore = workers().cpuMs;
  const start = performance.now();
  const result = await extract(bytes);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000 + workers().cpuMs - workersBefore,
    pages: result.stats.pages,
    format: result.stats.format,
  };
}

try {
  const first = await once();
  const warm = [await once(), await once(), await once()];
  reply({
    ok: true,
    format: first.format,
    pages: first.pages,
    bytes: bytes.length,
    firstMs: first.ms,
    firstCpuMs: first.cpuMs,
    warmMs: median(warm.map((r) => r.ms)),
    warmCpuMs: median(warm.map((r) => r.cpuMs)),
    baselineMb,
    // maxRSS is in kilobytes.
    peakMb: process.resourceUsage().maxRSS / 1024 + workers().peakMb,
  });
} catch (error) {
  reply({ ok: false, error: `${(error as Error).name}: ${(error as Error).message}` });
}
