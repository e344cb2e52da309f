// The embedded S3 keeps S3's read-after-write: an object whose PUT has answered reads back whole,
// however slowly the disk takes its bytes. s3rver answered before its file was written, so a GET
// right after could read an empty file (the catalogue pointer did, under load). The disk is slowed
// here, below s3rver and our store alike, by delaying every file-stream write.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { WriteStream } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { type EmbeddedAws, startEmbeddedAws } from '../../infra/local/embedded.ts';
import { s3 } from '../../shared/aws/s3.ts';
import { config } from '../../shared/config.ts';

type Write = (this: WriteStream, ...args: unknown[]) => void;
const proto = WriteStream.prototype as unknown as Record<'_write' | '_writev', Write>;

/** Every file-stream write waits `ms` before it starts, while `run` runs. */
async function withSlowDisk<T>(ms: number, run: () => Promise<T>): Promise<T> {
  const originals = { _write: proto._write, _writev: proto._writev };
  for (const name of ['_write', '_writev'] as const) {
    const original = originals[name];
    proto[name] = function (this: WriteStream, ...args: unknown[]) {
      void sleep(ms).then(() => original.apply(this, args));
    };
  }
  try {
    return await run();
  } finally {
    Object.assign(proto, originals);
  }
}

let aws: EmbeddedAws;
before(async () => {
  aws = await startEmbeddedAws();
});
after(() => aws.close());

const put = (key: string, body: Uint8Array | string) =>
  s3().send(new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: body }));
const get = async (key: string) => {
  const object = await s3().send(new GetObjectCommand({ Bucket: config.bucketName, Key: key }));
  return Buffer.from(await object.Body!.transformToByteArray());
};

describe('embedded S3', () => {
  it('reads an object back whole as soon as its PUT has answered, on a slow disk', async () => {
    const pointer = JSON.stringify({ version: 'v1', key: 'catalog/snapshots/v1.json' });
    const large = randomBytes(1024 * 1024 + 17);
    await withSlowDisk(40, async () => {
      await put('read-after-write/pointer.json', pointer);
      assert.equal((await get('read-after-write/pointer.json')).toString(), pointer);
      await put('read-after-write/large.bin', large);
      assert.ok((await get('read-after-write/large.bin')).equals(large), 'the large object reads back whole');
      // A rewrite of the same key, as the pointer is rewritten by every import.
      await put('read-after-write/pointer.json', '{"version":"v2"}');
      assert.equal((await get('read-after-write/pointer.json')).toString(), '{"version":"v2"}');
    });
  });

  it('lists keys page by page as S3 does, following continuation tokens', async () => {
    const keys = ['a.json', 'b & c.json', 'd.json', 'e/f.json', 'g.json'].map((name) => `pages/${name}`);
    for (const key of keys) await put(key, key);
    const list = (options: {
      ContinuationToken?: string;
      Delimiter?: string;
      StartAfter?: string;
      MaxKeys?: number;
    }) =>
      s3().send(
        new ListObjectsV2Command({ Bucket: config.bucketName, Prefix: 'pages/', MaxKeys: 2, ...options }),
      );
    const pages: string[][] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await list({ ContinuationToken });
      pages.push((page.Contents ?? []).map((object) => object.Key!));
      assert.equal(page.IsTruncated, page.NextContinuationToken !== undefined);
      assert.equal(page.KeyCount, pages.at(-1)!.length);
      ContinuationToken = page.NextContinuationToken;
    } while (ContinuationToken);
    assert.deepEqual(pages, [keys.slice(0, 2), keys.slice(2, 4), keys.slice(4)]);
    // A folder under a delimiter is one common prefix; StartAfter skips what sorts before it.
    const folders = await list({ Delimiter: '/', StartAfter: 'pages/b', MaxKeys: 10 });
    assert.deepEqual(
      [folders.Contents?.map((object) => object.Key), folders.CommonPrefixes?.map((p) => p.Prefix)],
      [['pages/b & c.json', 'pages/d.json', 'pages/g.json'], ['pages/e/']],
    );
    // A page that ends in a common prefix goes on after that prefix's keys: the prefix is listed once.
    const entries: string[] = [];
    ContinuationToken = undefined;
    do {
      const page = await list({ Delimiter: '/', StartAfter: 'pages/b', MaxKeys: 2, ContinuationToken });
      entries.push(
        ...(page.Contents ?? []).map((object) => object.Key!),
        ...(page.CommonPrefixes ?? []).map((common) => common.Prefix!),
      );
      ContinuationToken = page.NextContinuationToken;
    } while (ContinuationToken);
    assert.deepEqual(entries.sort(), ['pages/b & c.json', 'pages/d.json', 'pages/e/', 'pages/g.json']);
    // A token S3 did not give is refused as S3 refuses it, not a 500.
    await assert.rejects(list({ ContinuationToken: 'not-a-token' }), { name: 'InvalidArgument' });
  });

  it('answers at most 1,000 keys a page whatever MaxKeys asks, and refuses a max-keys that is no integer', async () => {
    const keys = Array.from({ length: 1001 }, (_, i) => `cap/${String(i).padStart(4, '0')}`);
    for (let i = 0; i < keys.length; i += 50)
      await Promise.all(keys.slice(i, i + 50).map((key) => put(key, '')));
    const list = (ContinuationToken?: string) =>
      s3().send(
        new ListObjectsV2Command({
          Bucket: config.bucketName,
          Prefix: 'cap/',
          MaxKeys: 5000,
          ContinuationToken,
        }),
      );
    const first = await list();
    assert.deepEqual([first.KeyCount, first.IsTruncated], [1000, true]);
    const second = await list(first.NextContinuationToken);
    assert.deepEqual(
      [second.Contents?.map((object) => object.Key), second.IsTruncated],
      [[keys[1000]], false],
    );
    // The SDK sends only integers; another client may not.
    for (const maxKeys of ['ten', '2.5', '-1']) {
      const res = await fetch(
        `${aws.s3Endpoint}/${config.bucketName}?list-type=2&prefix=cap/&max-keys=${maxKeys}`,
      );
      assert.equal(res.status, 400, maxKeys);
      assert.match(await res.text(), /<Code>InvalidArgument<\/Code>/, maxKeys);
    }
  });

  it('answers a conditional PUT as S3 does: If-Match on a missing key 404, an ETag matched quoted or not', async () => {
    const putIf = (key: string, IfMatch: string) =>
      s3().send(new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: 'next', IfMatch }));
    await assert.rejects(
      putIf('conditional/missing.json', '"0123456789abcdef0123456789abcdef"'),
      (error: Error & { $metadata?: { httpStatusCode?: number } }) =>
        error.name === 'NoSuchKey' && error.$metadata?.httpStatusCode === 404,
    );
    const { ETag } = await put('conditional/there.json', 'first');
    assert.match(ETag!, /^"[0-9a-f]{32}"$/);
    await putIf('conditional/there.json', ETag!.replace(/"/g, ''));
    assert.equal((await get('conditional/there.json')).toString(), 'next');
  });
});
