// s3rver ignores If-Match and If-None-Match on PUT, which S3 honours (conditional writes) and the
// catalogue import relies on to merge racing imports (docs/shopping.md, "Snapshots"). This
// middleware gives the embedded S3 S3's answers: 412 PreconditionFailed when the object's ETag
// differs (If-Match) or the object exists (If-None-Match: *), 404 NoSuchKey for If-Match on a
// missing object. Conditional PUTs to one key are serialised, so the check and the write are one
// step, as in S3.

export interface ObjectStore {
  existsObject(bucket: string, key: string): Promise<boolean>;
  getMetadata(bucket: string, key: string): Promise<{ etag: string }>;
}

interface KoaContext {
  method: string;
  path: string;
  status: number;
  type: string;
  body: unknown;
  get(header: string): string;
}

type Next = () => Promise<unknown>;

const unquote = (etag: string) => etag.trim().replace(/^W\//, '').replace(/^"|"$/g, '');

const s3ErrorXml = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;

export const conditionalWrites = (store: ObjectStore) => {
  const queues = new Map<string, Promise<unknown>>();

  const oneAtATime = async (path: string, run: () => Promise<unknown>) => {
    const turn = (queues.get(path) ?? Promise.resolve()).then(run, run);
    const settled = turn.catch(() => undefined);
    queues.set(path, settled);
    try {
      return await turn;
    } finally {
      if (queues.get(path) === settled) queues.delete(path);
    }
  };

  return async (ctx: KoaContext, next: Next): Promise<unknown> => {
    const ifMatch = ctx.get('if-match');
    const ifNoneMatch = ctx.get('if-none-match');
    if (ctx.method !== 'PUT' || (!ifMatch && !ifNoneMatch)) return next();
    // Path-style, as the SDK clients of the local runtime address it: /<bucket>/<key>.
    const [bucket = '', ...keyParts] = ctx.path.slice(1).split('/').map(decodeURIComponent);
    const key = keyParts.join('/');
    return oneAtATime(`${bucket}/${key}`, async () => {
      const exists = await store.existsObject(bucket, key);
      if (ifNoneMatch === '*' && exists) {
        ctx.status = 412;
        ctx.type = 'application/xml';
        ctx.body = s3ErrorXml(
          'PreconditionFailed',
          'At least one of the pre-conditions you specified did not hold',
        );
        return;
      }
      if (ifMatch) {
        if (!exists) {
          ctx.status = 404;
          ctx.type = 'application/xml';
          ctx.body = s3ErrorXml('NoSuchKey', 'The specified key does not exist.');
          return;
        }
        const { etag } = await store.getMetadata(bucket, key);
        if (ifMatch !== '*' && unquote(etag) !== unquote(ifMatch)) {
          ctx.status = 412;
          ctx.type = 'application/xml';
          ctx.body = s3ErrorXml(
            'PreconditionFailed',
            'At least one of the pre-conditions you specified did not hold',
          );
          return;
        }
      }
      await next();
    });
  };
};
