// The catalogue a search function serves: the newest snapshot, loaded once per container into an
// in-memory index, and re-checked at most once a minute (one small GET of the pointer).
import { now } from '../clock.ts';
import { log } from '../log.ts';
import { buildIndex, type SearchIndex } from './search-index.ts';
import { CATALOG_SOURCE, readLatestPointer, readSnapshot } from './snapshots.ts';

export const RECHECK_MS = 60_000;

export interface LoadedCatalog {
  /** null before the first import: every search then finds nothing. */
  version: string | null;
  source: string;
  index: SearchIndex;
  checkedAt: number;
}

let loaded: LoadedCatalog | undefined;
let refreshing: Promise<LoadedCatalog> | undefined;

/** The catalogue to search now; concurrent callers share one refresh. */
export function currentCatalog(): Promise<LoadedCatalog> {
  if (loaded && now().getTime() - loaded.checkedAt < RECHECK_MS) return Promise.resolve(loaded);
  refreshing ??= refresh().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

async function refresh(): Promise<LoadedCatalog> {
  const at = now().getTime();
  try {
    const latest = await readLatestPointer();
    if (!latest) loaded = { version: null, source: CATALOG_SOURCE, index: buildIndex([]), checkedAt: at };
    else if (latest.pointer.version === loaded?.version) loaded.checkedAt = at;
    else {
      const started = performance.now();
      const snapshot = await readSnapshot(latest.pointer.key);
      const index = buildIndex(snapshot.products);
      loaded = { version: latest.pointer.version, source: snapshot.source, index, checkedAt: at };
      log.info('catalog loaded', {
        version: loaded.version,
        products: index.size,
        ms: Math.round(performance.now() - started),
      });
    }
  } catch (error) {
    // A failed re-check keeps serving the version in hand, and tries again a minute later.
    if (!loaded) throw error;
    log.warn('catalog re-check failed; serving the loaded version', { error: (error as Error).name });
    loaded.checkedAt = at;
  }
  return loaded;
}
