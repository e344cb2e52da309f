// The catalogue a search function serves: the newest snapshot, loaded once per container into an
// in-memory index, and re-checked at most once a minute (one small GET of the pointer).
import { now } from '../clock.ts';
import { log } from '../log.ts';
import { buildIndex, type SearchIndex } from './search-index.ts';
import { CATALOG_SOURCE, MissingSnapshotError, readLatestPointer, readSnapshot } from './snapshots.ts';

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

/** The catalogue the pointer names now: the one in hand when it still names that. */
async function loadLatest(at: number): Promise<LoadedCatalog> {
  const latest = await readLatestPointer();
  if (!latest) return { version: null, source: CATALOG_SOURCE, index: buildIndex([]), checkedAt: at };
  if (latest.pointer.version === loaded?.version) return { ...loaded, checkedAt: at };
  const started = performance.now();
  const snapshot = await readSnapshot(latest.pointer.key);
  const index = buildIndex(snapshot.products);
  log.info('catalog loaded', {
    version: latest.pointer.version,
    products: index.size,
    ms: Math.round(performance.now() - started),
  });
  return { version: latest.pointer.version, source: snapshot.source, index, checkedAt: at };
}

async function refresh(): Promise<LoadedCatalog> {
  const at = now().getTime();
  try {
    // Imports keep the newest few snapshots: one pruned between the pointer's read and its own (newer
    // imports landed meanwhile) is followed, once, to the one the pointer names now.
    loaded = await loadLatest(at).catch((error: unknown) => {
      if (error instanceof MissingSnapshotError) return loadLatest(at);
      throw error;
    });
  } catch (error) {
    // A failed re-check keeps serving the version in hand, and tries again a minute later.
    if (!loaded) throw error;
    log.warn('catalog re-check failed; serving the loaded version', { error: (error as Error).name });
    loaded.checkedAt = at;
  }
  return loaded;
}
