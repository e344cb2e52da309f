// Catalogue import on the embedded S3: formats, bad rows, bad files that change nothing, merging per
// merchant, racing imports, the S3-triggered function and the CLI.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { handler as importHandler } from '../../functions/shopping/import-catalog-feed.ts';
import { readImportArgs, runImport } from '../../scripts/catalog-import.ts';
import { headObject, s3 } from '../../shared/aws/s3.ts';
import { setClock } from '../../shared/clock.ts';
import { config } from '../../shared/config.ts';
import { newId } from '../../shared/ids.ts';
import { serializeSnapshot } from '../../shared/shopping/catalog.ts';
import { FeedError } from '../../shared/shopping/feeds.ts';
import {
  feedKeys,
  feedObjectTarget,
  IMPORT_ATTEMPTS,
  importCatalogFeed,
} from '../../shared/shopping/import.ts';
import { CATALOG_KEYS } from '../../shared/shopping/keys.ts';
import { RECHECK_MS } from '../../shared/shopping/loaded-catalog.ts';
import {
  CATALOG_SOURCE,
  CatalogChangedError,
  KEPT_SNAPSHOTS,
  MissingSnapshotError,
  readLatestPointer,
  readSnapshot,
} from '../../shared/shopping/snapshots.ts';
import { startExposureScan } from '../hardening/support.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { clearFaults, intercept, sdkError } from '../support/sdk-faults.ts';

let h: Harness;
const dir = mkdtempSync(join(tmpdir(), 'feeds-'));

before(async () => {
  h = await startHarness();
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await h.close();
});

const catalog = async () => {
  const latest = await readLatestPointer();
  return latest
    ? { pointer: latest.pointer, products: (await readSnapshot(latest.pointer.key)).products }
    : undefined;
};
const idsOf = (products: { merchant: string; id: string }[]) =>
  products.map((p) => `${p.merchant}:${p.id}`).sort();

const gmc = (rows: string[]) => ['id\ttitle\tlink\tprice', ...rows].join('\n');
/** Puts a feed (or any object) in the bucket, as a merchant drops one. */
const putFeed = (key: string, body: string, metadata?: Record<string, string>) =>
  s3().send(new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: body, Metadata: metadata }));

/** The titles a search for `query` answers, once this process's search has re-read the pointer: the
 * clock moves on past each re-check before (the demo seed's too), as it cannot move back. */
let ahead = 0;
const search = async (query: string) => {
  ahead += 10 * RECHECK_MS;
  setClock(new Date(Date.now() + ahead));
  try {
    const session = await h.call('POST', '/api/v1/shopping/sessions', { json: {} });
    const res = await h.call('POST', `/api/v1/shopping/sessions/${session.body.id}/search`, {
      json: { query },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.results.map((result: { title: string }) => result.title);
  } finally {
    setClock(undefined);
  }
};

describe('catalogue import', () => {
  it('before any import, search answers with an empty catalogue', async () => {
    const session = await h.call('POST', '/api/v1/shopping/sessions', { json: {} });
    const res = await h.call('POST', `/api/v1/shopping/sessions/${session.body.id}/search`, {
      json: { query: 'anything' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      query: 'anything',
      results: [],
      total_count: 0,
      source: 'merchant-catalog',
    });
  });

  it('imports each format, reports bad rows by line and skips them', async () => {
    const tsv = await importCatalogFeed(
      gmc([
        'g1\tLamp\thttps://gmc.example/1\t15.00 USD',
        'g2\t\thttps://gmc.example/2\t15.00 USD',
        'g3\tRug\thttps://elsewhere.example/3\t15.00 USD',
        'g4\tChair\thttps://gmc.example/4\tcheap',
      ]),
      { merchant: 'gmc.example', merchantType: 'affiliate', trackingParams: { aff: '7' } },
    );
    assert.equal(tsv.format, 'gmc');
    assert.equal(tsv.imported, 1);
    assert.deepEqual(
      tsv.rejected.map((r) => r.line),
      [3, 4, 5],
    );
    assert.match(tsv.rejected[0]!.reason, /title is empty/);
    assert.match(tsv.rejected[1]!.reason, /not on merchant gmc\.example/);
    assert.match(tsv.rejected[2]!.reason, /price/);

    const acp = await importCatalogFeed(
      'item_id,title,url,price,seller_name\na1,Kettle,https://acp.example/a1,45.00 EUR,ACP\n',
      { merchant: 'acp.example', merchantType: 'acp' },
    );
    assert.equal(acp.format, 'acp');
    const ucp = await importCatalogFeed(
      `${JSON.stringify({ id: 'u1', title: 'Mug', url: 'https://ucp.example/u1', price: { amount: 1299, currency: 'USD' } })}\nnot json\n`,
      { merchant: 'ucp.example', merchantType: 'ucp' },
    );
    assert.equal(ucp.format, 'jsonl');
    assert.deepEqual(ucp.rejected[0]?.line, 2);

    const now = (await catalog())!;
    assert.deepEqual(idsOf(now.products), ['acp.example:a1', 'gmc.example:g1', 'ucp.example:u1']);
    assert.equal(now.pointer.product_count, 3);
    assert.deepEqual(Object.keys(now.pointer.merchants).sort(), [
      'acp.example',
      'gmc.example',
      'ucp.example',
    ]);
    const lamp = now.products.find((p) => p.id === 'g1')!;
    assert.equal(lamp.affiliate_url, 'https://gmc.example/1?aff=7');
    assert.equal(now.products.find((p) => p.id === 'u1')!.price_cents, 1299);
  });

  it('a re-import replaces only that merchant’s products', async () => {
    const report = await importCatalogFeed(
      gmc(['g5\tDesk\thttps://gmc.example/5\t150.00 USD', 'g6\tShelf\thttps://gmc.example/6\t60.00 USD']),
      { merchant: 'https://www.gmc.example/', merchantType: 'affiliate' },
    );
    assert.equal(report.replaced, 1);
    assert.equal(report.catalog_products, 4);
    const now = (await catalog())!;
    assert.deepEqual(idsOf(now.products), [
      'acp.example:a1',
      'gmc.example:g5',
      'gmc.example:g6',
      'ucp.example:u1',
    ]);
    assert.equal(now.products.find((p) => p.id === 'g5')!.affiliate_url, 'https://gmc.example/5');
  });

  it('a file that is bad as a whole changes nothing', async () => {
    const before = (await catalog())!;
    const bad: [string | Uint8Array, RegExp][] = [
      ['id\ttitle\n1\tNo link or price\n', /missing required column/],
      [
        gmc(['x1\tLamp\thttps://elsewhere.example/1\t1 USD', 'x2\t\thttps://gmc.example/2\t1 USD']),
        /no valid rows/,
      ],
      [new Uint8Array([0x69, 0x64, 0xff, 0xfe]), /not UTF-8/],
      ['', /empty/],
      ['id\ttitle\tlink\tprice\n', /no products/],
    ];
    for (const [feed, reason] of bad) {
      await assert.rejects(
        importCatalogFeed(feed, { merchant: 'gmc.example', merchantType: 'affiliate' }),
        (e) => {
          assert.ok(e instanceof FeedError);
          assert.match(e.message, reason);
          return true;
        },
      );
    }
    await assert.rejects(
      importCatalogFeed(gmc(['y\tY\thttps://ucp.example/y\t1 USD']), {
        merchant: 'ucp.example',
        merchantType: 'ucp',
        trackingParams: { tag: 'x' },
      }),
      /only apply to affiliate/,
    );
    assert.deepEqual((await catalog())!.pointer, before.pointer);
  });

  it('two imports racing for the pointer both land: the loser merges again', async () => {
    let raced = false;
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: string };
        if (
          context.commandName === 'PutObjectCommand' &&
          input.Key === 'catalog/snapshots/latest.json' &&
          !raced
        ) {
          raced = true;
          // Another merchant's import lands between our read and our pointer write.
          await importCatalogFeed(gmc(['r1\tRaced\thttps://race.example/1\t1 USD']), {
            merchant: 'race.example',
            merchantType: 'affiliate',
          });
          throw Object.assign(new Error('At least one of the pre-conditions you specified did not hold'), {
            name: 'PreconditionFailed',
            $metadata: { httpStatusCode: 412 },
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'racePointerWrite' },
    );
    try {
      await importCatalogFeed(gmc(['s1\tSlow\thttps://slow.example/1\t1 USD']), {
        merchant: 'slow.example',
        merchantType: 'affiliate',
      });
    } finally {
      s3().middlewareStack.remove('racePointerWrite');
    }
    assert.ok(raced);
    const ids = idsOf((await catalog())!.products);
    assert.ok(ids.includes('race.example:r1') && ids.includes('slow.example:s1'), ids.join());
  });

  it('an import that loses the pointer race nine times lands on its tenth try; one that loses every try throws', async () => {
    // A night's batch of ten feeds: the last to land loses nine races first (IMPORT_ATTEMPTS).
    const losing = (losses: number) => {
      let writes = 0;
      intercept(
        's3',
        (next, context) => async (args) => {
          const isPointerWrite =
            context.commandName === 'PutObjectCommand' && args.input.Key === CATALOG_KEYS.latest;
          if (isPointerWrite && ++writes <= losses) throw sdkError('conflict');
          return next(args);
        },
        'initialize',
      );
      return () => writes;
    };
    const feed = gmc(['n1\tLamp\thttps://nine.example/n1\t5 USD']);
    try {
      const writes = losing(9);
      const report = await importCatalogFeed(feed, { merchant: 'nine.example', merchantType: 'ucp' });
      assert.equal(writes(), 10);
      assert.equal((await catalog())!.pointer.version, report.version);
      clearFaults();
      const before = (await catalog())!.pointer;
      const always = losing(Number.POSITIVE_INFINITY);
      await assert.rejects(
        importCatalogFeed(feed, { merchant: 'nine.example', merchantType: 'ucp' }),
        CatalogChangedError,
      );
      assert.equal(always(), 10, 'the ten tries docs/shopping.md states');
      assert.deepEqual((await catalog())!.pointer, before);
    } finally {
      clearFaults();
    }
  });

  it('a pointer naming a snapshot that is gone is a broken catalogue, thrown at once, not a race merged again', async () => {
    await importCatalogFeed(gmc(['g1\tLamp\thttps://gone.example/g1\t5 USD']), {
      merchant: 'gone.example',
      merchantType: 'ucp',
    });
    const { key } = (await catalog())!.pointer;
    const object = await s3().send(new GetObjectCommand({ Bucket: config.bucketName, Key: key }));
    const bytes = await object.Body!.transformToByteArray();
    await s3().send(new DeleteObjectCommand({ Bucket: config.bucketName, Key: key }));
    try {
      await assert.rejects(
        importCatalogFeed(gmc(['b1\tLamp\thttps://broken.example/b1\t5 USD']), {
          merchant: 'broken.example',
          merchantType: 'ucp',
        }),
        MissingSnapshotError,
      );
    } finally {
      await s3().send(new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: bytes }));
    }
  });

  it('imports of ten merchants at once all land, each report true to the catalogue', async () => {
    // No simulated 412 here: the embedded S3 must refuse the stale pointer writes itself, as S3 does.
    // Each lost race is another import's win: IMPORT_ATTEMPTS imports at once must all land.
    const merchants = Array.from({ length: IMPORT_ATTEMPTS }, (_, i) => `m${i + 1}.example`);
    const before = (await catalog())!.products.length;
    const reports = await Promise.all(
      merchants.map((merchant) =>
        importCatalogFeed(gmc([`p\tLamp\thttps://${merchant}/p\t5.00 USD`]), {
          merchant,
          merchantType: 'ucp',
        }),
      ),
    );
    const now = (await catalog())!;
    assert.deepEqual(
      merchants.filter((m) => !now.products.some((p) => p.merchant === m)),
      [],
      'every merchant whose import reported success is in the catalogue',
    );
    assert.equal(now.products.length, before + merchants.length);
    assert.equal(Math.max(...reports.map((r) => r.catalog_products)), before + merchants.length);
    assert.deepEqual(
      Object.keys(now.pointer.merchants)
        .filter((m) => merchants.includes(m))
        .sort(),
      [...merchants].sort(),
    );
    // What the pointer write relies on, asked of the embedded S3 directly (as S3 answers).
    const status = (e: unknown) =>
      (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const put = (condition: { IfMatch?: string; IfNoneMatch?: string }) =>
      s3().send(
        new PutObjectCommand({
          Bucket: config.bucketName,
          Key: 'catalog/snapshots/latest.json',
          Body: '{}',
          ...condition,
        }),
      );
    await assert.rejects(put({ IfNoneMatch: '*' }), (e) => status(e) === 412);
    await assert.rejects(put({ IfMatch: '"0123456789abcdef0123456789abcdef"' }), (e) => status(e) === 412);
    assert.deepEqual((await catalog())!.pointer, now.pointer, 'a refused write changes nothing');
  });

  it('the S3-triggered function imports feeds put under catalog/feeds/<type>/<merchant>/', async () => {
    const key = 'catalog/feeds/affiliate/drop.example/2026 spring.tsv';
    await putFeed(
      key,
      gmc(['d1\tTent\thttps://drop.example/d1\t199.00 USD', 'd2\t\thttps://drop.example/d2\t1 USD']),
      { tracking: 'tag=drop-20&utm_source=tcs' },
    );
    // EventBridge "Object Created" carries the key as it is.
    const [report] = (await importHandler({ detail: { object: { key } } })) as {
      imported: number;
      rejected: unknown[];
    }[];
    assert.equal(report!.imported, 1);
    assert.equal(report!.rejected.length, 1);
    const tent = (await catalog())!.products.find((p) => p.id === 'd1')!;
    assert.equal(tent.merchant_type, 'affiliate');
    assert.equal(tent.affiliate_url, 'https://drop.example/d1?tag=drop-20&utm_source=tcs');
    // A plain S3 notification URL-encodes the key.
    const again = await importHandler({
      Records: [{ s3: { object: { key: 'catalog/feeds/affiliate/drop.example/2026+spring.tsv' } } }],
    });
    assert.equal((again[0] as { imported: number }).imported, 1);
    // Were EventBridge to encode it too (not checked without AWS), the feed is found decoded; a name
    // with a real `+` is found as it is.
    const encoded = await importHandler({
      detail: { object: { key: 'catalog/feeds/affiliate/drop.example/2026+spring.tsv' } },
    });
    assert.equal((encoded[0] as { imported: number }).imported, 1);
    const plus = 'catalog/feeds/affiliate/drop.example/a+b.tsv';
    await putFeed(plus, gmc(['d3\tStove\thttps://drop.example/d3\t50.00 USD']));
    const [withPlus] = (await importHandler({ detail: { object: { key: plus } } })) as { imported: number }[];
    assert.equal(withPlus!.imported, 1);
    assert.ok((await catalog())!.products.some((p) => p.id === 'd3'));
    // A plain notification's key is decoded once, and taken as sent where it is no URL encoding.
    assert.deepEqual(
      feedKeys({ Records: [{ s3: { object: { key: 'catalog/feeds/ucp/x.example/100%.tsv' } } }] }),
      [{ key: 'catalog/feeds/ucp/x.example/100%.tsv', mayBeEncoded: false }],
    );
  });

  it('a feed older than the one its merchant was last imported from is refused, whatever order they come in', async () => {
    const put = (file: string, id: string) =>
      putFeed(
        `catalog/feeds/ucp/order.example/${file}`,
        gmc([`${id}\tLamp ${id}\thttps://order.example/${id}\t20.00 USD`]),
      );
    const run = (file: string) =>
      importHandler({ detail: { object: { key: `catalog/feeds/ucp/order.example/${file}` } } });
    const ids = async () => idsOf((await catalog())!.products.filter((p) => p.merchant === 'order.example'));
    await put('monday.tsv', 'mon');
    await sleep(1100); // Last-Modified counts whole seconds
    await put('tuesday.tsv', 'tue');
    assert.equal(((await run('tuesday.tsv'))[0] as { imported: number }).imported, 1);
    // Monday's event, retried after Tuesday's import: refused, Tuesday's products stay.
    const late = await run('monday.tsv');
    assert.match(
      (late[0] as { refused: string }).refused,
      /a newer feed of order\.example .* is already imported/,
    );
    assert.deepEqual(await ids(), ['order.example:tue']);
    // The same feed again, or one written since, imports.
    assert.equal(((await run('tuesday.tsv'))[0] as { imported: number }).imported, 1);
    await put('monday.tsv', 'mon2');
    assert.equal(((await run('monday.tsv'))[0] as { imported: number }).imported, 1);
    assert.deepEqual(await ids(), ['order.example:mon2']);
  });

  it('the function drops a bad feed or key without retrying, and leaves the catalogue as it was', async () => {
    const before = (await catalog())!.pointer;
    const key = 'catalog/feeds/ucp/drop.example/broken.csv';
    await putFeed(key, 'not,a,feed\n1,2,3\n');
    const results = await importHandler({
      detail: { object: { key } },
    });
    assert.match((results[0] as { refused: string }).refused, /missing required column/);
    const badKey = await importHandler({
      detail: { object: { key: 'catalog/feeds/amazon/x.example/f.tsv' } },
    });
    assert.match((badKey[0] as { refused: string }).refused, /not catalog\/feeds\/<affiliate\|ucp\|acp>/);
    // Deleted before its event arrived: retrying (Lambda's, then the dead-letter queue) cannot help.
    const gone = await importHandler({
      detail: { object: { key: 'catalog/feeds/ucp/drop.example/gone.tsv' } },
    });
    assert.match((gone[0] as { refused: string }).refused, /is gone: deleted before its import/);
    // A plain notification's key is decoded once: a deleted 'a+b.tsv' (sent as a%2Bb.tsv) is gone,
    // though 'a b.tsv', its key decoded once more, is there.
    await putFeed(
      'catalog/feeds/ucp/drop.example/a b.tsv',
      gmc(['ab\tLamp\thttps://drop.example/ab\t5 USD']),
    );
    const deleted = await importHandler({
      Records: [{ s3: { object: { key: 'catalog/feeds/ucp/drop.example/a%2Bb.tsv' } } }],
    });
    assert.match(
      (deleted[0] as { refused: string }).refused,
      /"catalog\/feeds\/ucp\/drop\.example\/a\+b\.tsv" is gone/,
    );
    assert.deepEqual((await catalog())!.pointer, before);
    assert.throws(() => feedObjectTarget('catalog/feeds/acp/shop.example/'), FeedError);
    assert.deepEqual(feedObjectTarget('catalog/feeds/acp/www.Shop.example/a/b.csv'), {
      merchant: 'shop.example',
      merchantType: 'acp',
    });
  });

  it('the function logs the first 50 skipped rows of a feed; its report counts them all', async () => {
    const key = 'catalog/feeds/ucp/skips.example/feed.tsv';
    const bad = Array.from({ length: 60 }, (_, i) => `x${i}\tLamp\thttps://skips.example/x${i}\tfree`);
    await putFeed(key, gmc([...bad, 'ok\tLamp\thttps://skips.example/ok\t5 USD']));
    const scan = startExposureScan();
    let reports: { rejected: unknown[] }[];
    try {
      reports = (await importHandler({ detail: { object: { key } } })) as { rejected: unknown[] }[];
    } finally {
      scan.stop();
    }
    assert.equal(reports[0]!.rejected.length, 60);
    assert.equal(scan.texts.filter((text) => text.includes('catalog feed row skipped')).length, 50);
  });

  it('the function imports a feed of exactly 100 MiB and refuses one byte more, the catalogue as it was', async () => {
    // docs/shopping.md: a bucket feed larger than 100 MiB is refused. The embedded S3 holds a small
    // feed; its client reports the size.
    const key = 'catalog/feeds/ucp/size.example/feed.tsv';
    await putFeed(key, gmc(['s1\tLamp\thttps://size.example/s1\t5 USD']));
    let reported = 0;
    const name = 'report-feed-size';
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'GetObjectCommand' && reported)
          (result.output as { ContentLength?: number }).ContentLength = reported;
        return result;
      },
      { step: 'initialize', name },
    );
    try {
      reported = 100 * 1024 * 1024 + 1;
      const before = (await catalog())?.pointer;
      const [refused] = (await importHandler({ detail: { object: { key } } })) as { refused: string }[];
      assert.equal(refused!.refused, 'feed is larger than 104857600 bytes');
      assert.deepEqual((await catalog())?.pointer, before);
      reported = 100 * 1024 * 1024;
      const [report] = (await importHandler({ detail: { object: { key } } })) as { imported: number }[];
      assert.equal(report!.imported, 1);
    } finally {
      s3().middlewareStack.remove(name);
    }
  });

  it('npm run catalog:import imports a file and lists skipped rows; a bad file exits 1', async () => {
    const file = join(dir, 'feed.tsv');
    writeFileSync(
      file,
      gmc(['c1\tCLI Lamp\thttps://cli.example/c1\t12.00 USD', 'c2\tNo price\thttps://cli.example/c2\t']),
    );
    const lines: string[] = [];
    const ok = await runImport(
      [file, '--merchant', 'cli.example', '--merchant-type', 'affiliate', '--tracking', 'tag=cli-1'],
      (line) => lines.push(line),
    );
    assert.equal(ok, 0);
    assert.match(lines[0]!, /^imported 1 products from cli\.example \(affiliate, gmc feed\)/);
    assert.deepEqual(lines.slice(1), ['skipped 1 rows:', '  line 3: price is empty']);
    const lamp = (await catalog())!.products.find((p) => p.id === 'c1')!;
    assert.equal(lamp.affiliate_url, 'https://cli.example/c1?tag=cli-1');

    writeFileSync(file, 'nothing useful\n');
    const out: string[] = [];
    assert.equal(
      await runImport([file, '--merchant', 'cli.example', '--merchant-type', 'affiliate'], (l) =>
        out.push(l),
      ),
      1,
    );
    assert.match(out[0]!, /^feed refused, the catalogue is unchanged: missing required column/);
    assert.equal(
      await runImport([file, '--merchant', 'cli.example', '--merchant-type', 'amazon'], () => {}),
      2,
    );
    // A feed that cannot be read is one line and status 2 (a stack trace and 1 before), and a relative
    // path is taken from where npm was run.
    const missing: string[] = [];
    assert.equal(
      await runImport(
        ['no-such-feed.tsv', '--merchant', 'cli.example', '--merchant-type', 'affiliate'],
        (l) => missing.push(l),
      ),
      2,
    );
    assert.deepEqual(missing, ['cannot read the feed no-such-feed.tsv: ENOENT']);
    const relative = await readImportArgs(
      ['feed.tsv', '--merchant', 'cli.example', '--merchant-type', 'affiliate'],
      () => {},
      dir,
    );
    assert.equal(typeof relative === 'number' ? relative : relative.bytes.toString(), 'nothing useful\n');
  });

  it('keeps item_group_id from every format through the stored snapshot', async () => {
    const jsonl = (rows: object[]) => rows.map((row) => JSON.stringify(row)).join('\n');
    const feeds: [string, string, 'affiliate' | 'ucp' | 'acp'][] = [
      [
        'tsvgroups.example',
        gmc([
          't1\tTee S\thttps://tsvgroups.example/1\t9 USD\tTEE',
          't2\tTee M\thttps://tsvgroups.example/2\t9 USD\tTEE',
          't3\tCap\thttps://tsvgroups.example/3\t5 USD\t',
        ]).replace('\tprice', '\tprice\tg:item_group_id'),
        'affiliate',
      ],
      [
        'csvgroups.example',
        [
          'id,title,link,price,Item Group ID',
          'c1,Tee S,https://csvgroups.example/1,9 USD,TEE',
          'c2,Cap,https://csvgroups.example/2,5 USD,',
        ].join('\n'),
        'affiliate',
      ],
      [
        'acpgroups.example',
        'item_id,title,url,price,seller_name,group_id\na1,Tee S,https://acpgroups.example/1,9 USD,ACP,TEE',
        'acp',
      ],
      [
        'jsonlgroups.example',
        jsonl([
          {
            id: 'j1',
            title: 'Tee S',
            url: 'https://jsonlgroups.example/1',
            price_cents: 900,
            currency: 'USD',
            item_group_id: 'TEE',
          },
          { id: 'j2', title: 'Cap', url: 'https://jsonlgroups.example/2', price_cents: 500, currency: 'USD' },
        ]),
        'ucp',
      ],
    ];
    for (const [merchant, feed, merchantType] of feeds) {
      const report = await importCatalogFeed(feed, { merchant, merchantType });
      assert.deepEqual(report.rejected, [], merchant);
    }
    const groups = (await catalog())!.products
      .filter((p) => p.merchant.endsWith('groups.example'))
      .map((p) => `${p.merchant.replace('groups.example', '')}:${p.id}:${p.item_group_id ?? '-'}`)
      .sort();
    assert.deepEqual(groups, [
      'acp:a1:TEE',
      'csv:c1:TEE',
      'csv:c2:-',
      'jsonl:j1:TEE',
      'jsonl:j2:-',
      'tsv:t1:TEE',
      'tsv:t2:TEE',
      'tsv:t3:-',
    ]);
  });
});

describe('the demo seed', () => {
  it('imports 200+ products of three merchants, one per type and format, and a session with searches', async () => {
    const { seedShopping } = await import('../../infra/local/seed/shopping.ts');
    // This process's search has the catalogue of an earlier test loaded: let its minute pass.
    setClock(new Date(Date.now() + RECHECK_MS + 1000));
    const ids = await seedShopping({ owner: h.owner.id, other: h.other.id }).finally(() =>
      setClock(undefined),
    );
    const { pointer, products } = (await catalog())!;
    const demo = products.filter((p) => p.merchant.endsWith('.example') && p.merchant.includes('-'));
    assert.ok(demo.length >= 200, `${demo.length} demo products`);
    const merchants = Object.entries(pointer.merchants).filter(([domain]) => domain.includes('-'));
    assert.deepEqual(merchants.map(([, m]) => [m.merchant_type, m.format]).sort(), [
      ['acp', 'acp'],
      ['affiliate', 'gmc'],
      ['ucp', 'jsonl'],
    ]);
    const session = await h.call('GET', `/api/v1/shopping/sessions/${ids.shopping_session_id}`);
    assert.equal(session.status, 200);
    assert.deepEqual(
      session.body.recent_searches.map((s: { query: string }) => s.query),
      ['coffee maker', 'beach towel'],
    );
    assert.ok(session.body.recent_searches.every((s: { total_count: number }) => s.total_count > 0));
    const affiliate = demo.find((p) => p.merchant_type === 'affiliate')!;
    assert.match(affiliate.affiliate_url, /[?&]tag=tcs-demo-20&utm_source=tcs$/);
  });
});

describe('snapshot pruning', () => {
  /** Every key under catalog/snapshots/, in key order (so time order, then latest.json). */
  const snapshotObjects = async () => {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await s3().send(
        new ListObjectsV2Command({
          Bucket: config.bucketName,
          Prefix: CATALOG_KEYS.snapshotsPrefix,
          ContinuationToken,
        }),
      );
      keys.push(...(page.Contents ?? []).map((object) => object.Key!));
      ContinuationToken = page.NextContinuationToken;
    } while (ContinuationToken);
    return keys;
  };
  const lantern = (i: number) =>
    importCatalogFeed(gmc([`k${i}\tPruned Lantern ${i}\thttps://prune.example/${i}\t5.00 USD`]), {
      merchant: 'prune.example',
      merchantType: 'ucp',
    });
  it(`importing ${KEPT_SNAPSHOTS + 3} times leaves the newest ${KEPT_SNAPSHOTS} snapshots and the pointer, whatever the listing's page size; search still answers`, async () => {
    // Two keys a page (S3 pages at 1,000): the prune must follow the continuation tokens.
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ListObjectsV2Command') (args.input as { MaxKeys?: number }).MaxKeys = 2;
        return next(args);
      },
      { step: 'initialize', name: 'smallListingPages' },
    );
    const versions: string[] = [];
    try {
      for (let i = 0; i < KEPT_SNAPSHOTS + 3; i++) versions.push((await lantern(i)).version);
    } finally {
      s3().middlewareStack.remove('smallListingPages');
    }
    assert.equal((await readLatestPointer())!.pointer.version, versions.at(-1));
    assert.deepEqual(await snapshotObjects(), [
      ...versions.slice(-KEPT_SNAPSHOTS).map(CATALOG_KEYS.snapshot),
      CATALOG_KEYS.latest,
    ]);
    assert.deepEqual(await search('pruned lantern'), [`Pruned Lantern ${KEPT_SNAPSHOTS + 2}`]);
    // docs/shopping.md: the current snapshot and four to roll back to.
    assert.equal((await snapshotObjects()).length, 5 + 1);
  });

  it('keeps the snapshot the pointer names when newer ones were written meanwhile', async () => {
    // Between this import's pointer write and its prune, racing imports write their snapshots (their
    // pointer writes still to come): the pointer's own is then not among the newest.
    const racing: string[] = [];
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ListObjectsV2Command' && racing.length === 0)
          for (let i = 0; i < KEPT_SNAPSHOTS; i++) {
            const key = CATALOG_KEYS.snapshot(newId());
            racing.push(key);
            await s3().send(
              new PutObjectCommand({
                Bucket: config.bucketName,
                Key: key,
                Body: serializeSnapshot([], { source: CATALOG_SOURCE }),
              }),
            );
          }
        return next(args);
      },
      { step: 'initialize', name: 'racingSnapshots' },
    );
    let version: string;
    try {
      version = (await lantern(100)).version;
    } finally {
      s3().middlewareStack.remove('racingSnapshots');
    }
    assert.equal(racing.length, KEPT_SNAPSHOTS);
    assert.equal((await readLatestPointer())!.pointer.version, version);
    assert.deepEqual(await snapshotObjects(), [
      CATALOG_KEYS.snapshot(version),
      ...racing,
      CATALOG_KEYS.latest,
    ]);
    assert.deepEqual(await search('pruned lantern'), ['Pruned Lantern 100']);
  });

  it(`an import whose snapshot was pruned before it read it (${KEPT_SNAPSHOTS} imports landed meanwhile) merges again and lands`, async () => {
    const others = Array.from({ length: KEPT_SNAPSHOTS }, (_, i) => `meanwhile${i}.example`);
    let read: { key: string; pruned: boolean } | undefined;
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        const { Key } = args.input as { Key?: string };
        if (context.commandName === 'GetObjectCommand' && Key && CATALOG_KEYS.versionOf(Key) && !read) {
          read = { key: Key, pruned: false };
          // Between this import's pointer read and its snapshot read, other merchants' imports land.
          for (const merchant of others)
            await importCatalogFeed(gmc([`x\tLamp\thttps://${merchant}/x\t5.00 USD`]), {
              merchant,
              merchantType: 'ucp',
            });
          read.pruned = !(await headObject(Key));
        }
        return next(args);
      },
      { step: 'initialize', name: 'importsMeanwhile' },
    );
    let report: Awaited<ReturnType<typeof importCatalogFeed>>;
    try {
      report = await importCatalogFeed(gmc(['l1\tLate Lamp\thttps://late.example/l1\t5.00 USD']), {
        merchant: 'late.example',
        merchantType: 'ucp',
      });
    } finally {
      s3().middlewareStack.remove('importsMeanwhile');
    }
    assert.deepEqual(read?.pruned, true, 'the snapshot it first read was pruned');
    const now = (await catalog())!;
    assert.equal(now.pointer.version, report.version);
    assert.deepEqual(
      ['late.example', ...others].filter((m) => !now.products.some((p) => p.merchant === m)),
      [],
    );
  });

  it(`search follows the pointer again when the snapshot it named was pruned before it was read (${KEPT_SNAPSHOTS} imports meanwhile)`, async () => {
    await search('lantern');
    await lantern(200);
    let pruned: boolean | undefined;
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        const { Key } = args.input as { Key?: string };
        if (
          context.commandName === 'GetObjectCommand' &&
          Key &&
          CATALOG_KEYS.versionOf(Key) &&
          pruned === undefined
        ) {
          // Between the search's pointer read and its snapshot read, imports land and prune that one
          // (their own reads pass through here too: only the first read is the search's).
          pruned = false;
          for (let i = 201; i <= 200 + KEPT_SNAPSHOTS; i++) await lantern(i);
          pruned = !(await headObject(Key));
        }
        return next(args);
      },
      { step: 'initialize', name: 'prunedBeforeSearchRead' },
    );
    try {
      // Before, the re-check failed and the search kept serving the catalogue in hand for a minute more.
      assert.deepEqual(await search('lantern'), [`Pruned Lantern ${200 + KEPT_SNAPSHOTS}`]);
    } finally {
      s3().middlewareStack.remove('prunedBeforeSearchRead');
    }
    assert.equal(pruned, true, 'the snapshot the pointer first named was pruned');
  });

  it('a refused pointer write whose pointer then cannot be read keeps its snapshot: the pointer may name it', async () => {
    // The write lands with its answer lost and the SDK's resend is refused; the pointer read after
    // fails. Deleting the snapshot then would break a catalogue whose pointer names it.
    let pointerPuts = 0;
    let pointerGets = 0;
    intercept(
      's3',
      (next, context) => async (args) => {
        if (args.input.Key !== CATALOG_KEYS.latest) return next(args);
        if (context.commandName === 'GetObjectCommand' && ++pointerGets === 2) throw sdkError('server');
        if (context.commandName !== 'PutObjectCommand' || ++pointerPuts !== 1) return next(args);
        await next(args);
        throw sdkError('conflict');
      },
      'initialize',
    );
    let report: Awaited<ReturnType<typeof importCatalogFeed>>;
    try {
      report = await importCatalogFeed(gmc(['u1\tUnread\thttps://unread.example/1\t1 USD']), {
        merchant: 'unread.example',
        merchantType: 'ucp',
      });
    } finally {
      clearFaults();
    }
    assert.equal(pointerPuts, 2, 'merged again, from the pointer that names its first snapshot');
    assert.equal((await readLatestPointer())!.pointer.version, report.version);
    assert.ok((await catalog())!.products.some((p) => p.merchant === 'unread.example'));
  });

  it('the first import into an empty bucket writes the pointer only where none exists: a racing first import lands too', async () => {
    // A catalogue to put back afterwards, whatever the tests before this one did.
    await importCatalogFeed(gmc(['e1\tLamp\thttps://earlier.example/e1\t5 USD']), {
      merchant: 'earlier.example',
      merchantType: 'ucp',
    });
    const pointer = await s3().send(
      new GetObjectCommand({ Bucket: config.bucketName, Key: CATALOG_KEYS.latest }),
    );
    const saved = await pointer.Body!.transformToByteArray();
    await s3().send(new DeleteObjectCommand({ Bucket: config.bucketName, Key: CATALOG_KEYS.latest }));
    let raced = false;
    intercept(
      's3',
      (next, context) => async (args) => {
        if (context.commandName !== 'PutObjectCommand' || args.input.Key !== CATALOG_KEYS.latest || raced)
          return next(args);
        raced = true;
        // Another first import lands between this one's pointer read (none) and its write.
        await importCatalogFeed(gmc(['f1\tFirst\thttps://first.example/1\t1 USD']), {
          merchant: 'first.example',
          merchantType: 'ucp',
        });
        return next(args);
      },
      'initialize',
    );
    try {
      await importCatalogFeed(gmc(['s1\tSecond\thttps://second.example/1\t1 USD']), {
        merchant: 'second.example',
        merchantType: 'ucp',
      });
      assert.ok(raced);
      assert.deepEqual(Object.keys((await catalog())!.pointer.merchants).sort(), [
        'first.example',
        'second.example',
      ]);
    } finally {
      clearFaults();
      await s3().send(
        new PutObjectCommand({ Bucket: config.bucketName, Key: CATALOG_KEYS.latest, Body: saved }),
      );
    }
  });

  it('deletes the snapshot of a lost pointer race at once, and takes a landed pointer write whose answer was lost for landed', async () => {
    const status = (code: number, name: string) =>
      Object.assign(new Error(name), { name, $metadata: code ? { httpStatusCode: code } : {} });
    const snapshotPuts: string[] = [];
    let pointerPuts = 0;
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        const { Key } = args.input as { Key?: string };
        if (context.commandName !== 'PutObjectCommand') return next(args);
        if (Key && CATALOG_KEYS.versionOf(Key)) snapshotPuts.push(Key);
        if (Key !== CATALOG_KEYS.latest || ++pointerPuts !== 1) return next(args);
        // The first pointer write: another import lands first, so this one is refused (412).
        await importCatalogFeed(gmc(['w1\tWinner\thttps://winner.example/1\t1 USD']), {
          merchant: 'winner.example',
          merchantType: 'ucp',
        });
        throw status(412, 'PreconditionFailed');
      },
      { step: 'initialize', name: 'lostRace' },
    );
    let loser: Awaited<ReturnType<typeof importCatalogFeed>>;
    try {
      loser = await importCatalogFeed(gmc(['o1\tLoser\thttps://loser.example/1\t1 USD']), {
        merchant: 'loser.example',
        merchantType: 'ucp',
      });
    } finally {
      s3().middlewareStack.remove('lostRace');
    }
    // The loser's first snapshot, the winner's, then the loser's merged again.
    assert.equal(snapshotPuts.length, 3);
    assert.equal(await headObject(snapshotPuts[0]!), undefined, 'the lost race’s snapshot is gone');
    assert.equal(snapshotPuts[2], CATALOG_KEYS.snapshot(loser.version));
    assert.ok(await headObject(snapshotPuts[1]!), 'the winner’s stays');

    // A pointer write that lands with its answer lost: the SDK's resend is refused (412), as the
    // pointer has moved, to this import's own snapshot.
    const written: string[] = [];
    let lost = false;
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        const { Key } = args.input as { Key?: string };
        if (context.commandName === 'PutObjectCommand' && Key && CATALOG_KEYS.versionOf(Key))
          written.push(Key);
        if (context.commandName !== 'PutObjectCommand' || Key !== CATALOG_KEYS.latest || lost)
          return next(args);
        lost = true;
        await next(args);
        throw status(0, 'TimeoutError');
      },
      { step: 'finalizeRequest', priority: 'low', name: 'lostAnswer' },
    );
    let landed: Awaited<ReturnType<typeof importCatalogFeed>>;
    try {
      landed = await importCatalogFeed(gmc(['a1\tAnswer\thttps://answer.example/1\t1 USD']), {
        merchant: 'answer.example',
        merchantType: 'ucp',
      });
    } finally {
      s3().middlewareStack.remove('lostAnswer');
    }
    assert.ok(lost);
    assert.deepEqual(written, [CATALOG_KEYS.snapshot(landed.version)], 'one snapshot, not merged again');
    assert.equal((await readLatestPointer())!.pointer.version, landed.version);
    assert.ok(await headObject(written[0]!));
  });

  it('a lost race whose snapshot cannot be deleted still lands, warns, and a later prune deletes the snapshot', async () => {
    const status = (code: number, name: string) =>
      Object.assign(new Error(name), { name, $metadata: { httpStatusCode: code } });
    let loserSnapshot: string | undefined;
    let pointerPuts = 0;
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        const { Key } = args.input as { Key?: string };
        if (context.commandName === 'DeleteObjectCommand' && Key === loserSnapshot)
          throw status(503, 'SlowDown');
        if (context.commandName !== 'PutObjectCommand') return next(args);
        if (Key && CATALOG_KEYS.versionOf(Key)) loserSnapshot ??= Key;
        if (Key !== CATALOG_KEYS.latest || ++pointerPuts !== 1) return next(args);
        await lantern(100);
        throw status(412, 'PreconditionFailed');
      },
      { step: 'initialize', name: 'lostRaceUndeleted' },
    );
    const warnings: string[] = [];
    const { warn } = console;
    const level = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'info';
    console.warn = (line: string) => warnings.push(line);
    let loser: Awaited<ReturnType<typeof importCatalogFeed>>;
    try {
      loser = await importCatalogFeed(gmc(['u1\tUndeleted\thttps://undeleted.example/1\t1 USD']), {
        merchant: 'undeleted.example',
        merchantType: 'ucp',
      });
    } finally {
      s3().middlewareStack.remove('lostRaceUndeleted');
      console.warn = warn;
      process.env.LOG_LEVEL = level;
    }
    assert.equal((await readLatestPointer())!.pointer.version, loser.version);
    assert.notEqual(CATALOG_KEYS.snapshot(loser.version), loserSnapshot, 'merged again into a new snapshot');
    assert.ok(await headObject(loserSnapshot!), 'the lost race’s snapshot is left');
    const logged = warnings.map((line) => JSON.parse(line));
    assert.deepEqual(
      logged
        .filter((line) => line.message.includes('lost race'))
        .map(({ level, error }) => ({ level, error })),
      [{ level: 'warn', error: 'SlowDown' }],
      'the failed delete is logged',
    );
    // Once newer imports outnumber the kept places, it is pruned with the rest.
    for (let i = 0; i < KEPT_SNAPSHOTS; i++) await lantern(200 + i);
    assert.equal(await headObject(loserSnapshot!), undefined, 'pruned');
  });
});

describe('feeds that withhold rows from search', () => {
  it('a feed that withholds every row from search takes the merchant’s products out of search', async () => {
    const put = (file: string, flag: string) =>
      putFeed(
        `catalog/feeds/acp/optout.example/${file}`,
        [
          'item_id,title,url,price,enable_search',
          `o1,Optout Beacon,https://optout.example/1,20.00 USD,${flag}`,
          `o2,Optout Beacon XL,https://optout.example/2,30.00 USD,${flag}`,
        ].join('\n'),
      );
    const run = async (file: string) =>
      (await importHandler({ detail: { object: { key: `catalog/feeds/acp/optout.example/${file}` } } }))[0];
    await put('monday.csv', 'true');
    assert.equal(((await run('monday.csv')) as { imported: number }).imported, 2);
    assert.deepEqual(await search('optout beacon'), ['Optout Beacon', 'Optout Beacon XL']);
    await sleep(1100); // Last-Modified counts whole seconds
    await put('tuesday.csv', 'false');
    // Before, refused as "feed has no products": both stayed in search against the merchant's opt-out.
    const report = (await run('tuesday.csv')) as { imported: number; withheld: number; refused?: string };
    assert.equal(report.refused, undefined);
    assert.deepEqual([report.imported, report.withheld], [0, 2]);
    assert.deepEqual(
      (await catalog())!.products.filter((p) => p.merchant === 'optout.example'),
      [],
    );
    assert.equal((await catalog())!.pointer.merchants['optout.example']?.product_count, 0);
    assert.deepEqual(await search('optout beacon'), []);
  });
});
