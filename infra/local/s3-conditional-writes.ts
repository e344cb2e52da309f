// Two things S3 guarantees that s3rver does not, and the catalogue import relies on (docs/shopping.md,
// "Snapshots"), as does a brand-kit save's logo copy (CopyObject is a PUT; docs/brand-kits.md):
// - conditional writes: If-Match and If-None-Match on PUT. This middleware answers as S3 does: 412
//   PreconditionFailed when the object's ETag differs (If-Match) or it exists (If-None-Match: *),
//   404 NoSuchKey for If-Match on a missing object;
// - atomic objects: s3rver rewrites a file in place, so a GET during a PUT of the same key can stream
//   half of each and abort. Requests on one key are ordered here instead: reads share, a write has
//   the key alone from its check to the end of its response.

import type { IncomingMessage, ServerResponse } from 'node:http';

export interface ObjectStore {
  existsObject(bucket: string, key: string): Promise<boolean>;
  getMetadata(bucket: string, key: string): Promise<{ etag: string; 'content-length': number }>;
}

export interface KoaContext {
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
  type: string;
  body: unknown;
  req: IncomingMessage;
  res: ServerResponse;
  get(header: string): string;
}

export type Next = () => Promise<unknown>;

interface KeyTurns {
  /** Settles when the last write queued on the key is done. */
  write: Promise<void>;
  /** Reads since that write, which the next write waits for. */
  reads: Set<Promise<void>>;
  pending: number;
}

const unquote = (etag: string) => etag.trim().replace(/^W\//, '').replace(/^"|"$/g, '');

const s3ErrorXml = (code: string, message: string, details: Record<string, string> = {}) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>${Object.entries(
    details,
  )
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join('')}</Error>`;

const PRECONDITION = 'At least one of the pre-conditions you specified did not hold';

export const conditionalWrites = (store: ObjectStore) => {
  const keys = new Map<string, KeyTurns>();

  /** Waits for the key's turn; the returned function ends it. */
  const turn = async (path: string, exclusive: boolean): Promise<() => void> => {
    let turns = keys.get(path);
    if (!turns) {
      turns = { write: Promise.resolve(), reads: new Set(), pending: 0 };
      keys.set(path, turns);
    }
    const state = turns;
    state.pending++;
    let end!: () => void;
    const done = new Promise<void>((resolve) => {
      end = resolve;
    });
    let ready: Promise<unknown>;
    if (exclusive) {
      ready = Promise.all([state.write, ...state.reads]);
      state.write = ready.then(() => done);
      state.reads = new Set();
    } else {
      ready = state.write;
      const read = ready.then(() => done);
      state.reads.add(read);
    }
    await ready;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      end();
      if (--state.pending === 0 && keys.get(path) === state) keys.delete(path);
    };
  };

  return async (ctx: KoaContext, next: Next): Promise<unknown> => {
    const { bucket, key } = objectOf(ctx);
    // Bucket requests and the parts of a multipart upload leave the visible object alone.
    if (!key || ctx.query.partNumber !== undefined) return next();
    const reading = ctx.method === 'GET' || ctx.method === 'HEAD';
    const endTurn = await turn(`${bucket}/${key}`, !reading);
    // A GET streams its body after the middleware returns: the turn lasts until the response ends.
    ctx.res.once('close', endTurn);
    try {
      const ifMatch = ctx.get('if-match');
      const ifNoneMatch = ctx.get('if-none-match');
      if (ctx.method === 'PUT' && (ifMatch || ifNoneMatch)) {
        const exists = await store.existsObject(bucket, key);
        if (ifNoneMatch === '*' && exists) return refuse(ctx, 412, 'PreconditionFailed', PRECONDITION);
        if (ifMatch && !exists) return refuse(ctx, 404, 'NoSuchKey', 'The specified key does not exist.');
        if (ifMatch && ifMatch !== '*') {
          const { etag } = await store.getMetadata(bucket, key);
          if (unquote(etag) !== unquote(ifMatch)) return refuse(ctx, 412, 'PreconditionFailed', PRECONDITION);
        }
      }
      return await next();
    } catch (error) {
      endTurn();
      throw error;
    }
  };
};

/** The bucket and key a request names, path-style as the SDK clients of the local runtime address it:
 * /<bucket>/<key> (no key for a bucket request). */
export const objectOf = (ctx: KoaContext) => {
  const [bucket = '', ...keyParts] = ctx.path.slice(1).split('/').map(decodeURIComponent);
  return { bucket, key: keyParts.join('/') };
};

/** Answers as S3 refuses: its status and its XML error. */
export const refuse = (
  ctx: KoaContext,
  status: number,
  code: string,
  message: string,
  details?: Record<string, string>,
) => {
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = s3ErrorXml(code, message, details);
};
