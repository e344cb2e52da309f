// Shopping sessions and endpoint 5 on the real handlers and embedded stores, over a catalogue
// imported through the real import path from three small feeds (one per format and merchant type).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ndcgAt } from '../../scripts/eval-search.ts';
import { now, setClock } from '../../shared/clock.ts';
import { importCatalogFeed } from '../../shared/shopping/import.ts';
import { RECHECK_MS } from '../../shared/shopping/loaded-catalog.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { clearFaults, inject, intercept } from '../support/sdk-faults.ts';

let h: Harness;
let session: string;

const GMC = [
  'id\ttitle\tdescription\tlink\timage_link\tprice\tsale_price\tavailability\tbrand\tproduct_type\tgoogle_product_category\tproduct_rating',
  'A1\tTrail Running Shoes\tLight mesh upper.\thttps://www.trail.example/p/a1?color=red\thttps://trail.example/a1.jpg\t129.00 USD\t99.00 USD\tin stock\tStrideline\tShoes > Running\tApparel & Accessories > Shoes\t4.6',
  'A2\tRoad Running Shoes\tCushioned.\thttps://trail.example/p/a2\thttps://trail.example/a2.jpg\t89.00 USD\t\tin stock\tKestrel\tShoes > Running\tApparel & Accessories > Shoes\t',
  'A3\tWool Hiking Socks\tWarm socks to wear with running shoes or boots.\thttps://trail.example/p/a3\t\t15.00 USD\t\tin stock\tLoomwell\tApparel > Socks\tApparel & Accessories\t4.1',
  'A4\tBeach Towel\tOversized cotton towel.\thttps://trail.example/p/a4\t\t25.00 USD\t\tin stock\tSundune\tOutdoor > Beach\tHome & Garden > Linens\t',
].join('\n');

const ACP = [
  'item_id,title,description,url,brand,image_url,price,availability,seller_name',
  'K1,Running Shoe Cleaning Kit,Brush and foam for running shoes,https://kitchen.example/k1,Ferro,https://kitchen.example/k1.jpg,19.00 USD,in_stock,Ferro',
  'K2,Chef Knife,Forged steel,https://kitchen.example/k2,Ferro,https://kitchen.example/k2.jpg,89.50 USD,in_stock,Ferro',
  'K3,Beach Towel Set,Two towels for the beach,https://kitchen.example/k3,Ferro,,25.00 USD,in_stock,Ferro',
].join('\n');

const UCP = [
  {
    id: 'U1',
    title: 'Trail Running Shoes GTX',
    url: 'https://home.example/u1',
    price: { amount: 15900, currency: 'USD' },
    brand: 'Northpeak',
    product_type: 'Shoes > Running',
    rating: 4.8,
  },
  {
    id: 'U2',
    title: 'Linen Beach Towel',
    url: 'https://home.example/u2',
    price: { amount: 2500, currency: 'USD' },
    brand: 'Casa',
  },
  {
    id: 'U3',
    title: 'Ceramic Coffee Mug',
    url: 'https://home.example/u3',
    price: { amount: 1200, currency: 'USD' },
    brand: 'Casa',
  },
  { id: 'U4', title: 'Enamel Camping Mug', url: 'https://home.example/u4', price: 900, currency: 'USD' },
  { id: 'U5', title: 'Travel Mug', url: 'https://home.example/u5', price: 1500, currency: 'USD' },
  { id: 'U6', title: 'Stoneware Mug Set', url: 'https://home.example/u6', price: '32.00 USD' },
]
  .map((row) => JSON.stringify(row))
  .join('\n');

// Variants: three sizes of one Oxford shirt (item_group_id OX-1) and a linen shirt with no group.
const SHIRTS = [
  'id,title,link,price,item_group_id',
  'OX-S,Oxford Shirt S,https://shirts.example/ox-s,39.00 USD,OX-1',
  'OX-M,Oxford Shirt M,https://shirts.example/ox-m,42.00 USD,OX-1',
  'OX-L,Oxford Shirt Pale Blue L,https://shirts.example/ox-l,45.00 USD,OX-1',
  'LIN,Linen Shirt,https://shirts.example/lin,50.00 USD,',
].join('\n');

// Text as shoppers paste it and exporters write it: a word with a soft hyphen (a page that hyphenates
// it), and a JSON Lines title that a JavaScript exporter cut inside a surrogate pair (JSON.stringify
// writes the half left as the escape \ud83e).
const ODD = [
  'id,title,link,price',
  'L1,Gewachste Schnürsenkel,https://odd.example/l1,4.00 EUR',
  // A '<' that opens no tag is text, as a browser reads it; the tags around it are dropped.
  'L2,USB-C <-> HDMI Adapter <2 Pack> <b>4K</b>,https://odd.example/l2,19.00 EUR',
].join('\n');
const CUT = JSON.stringify({
  id: 'S1',
  title: 'Cosy Wool Slippers \u{1F9E6}'.slice(0, -1),
  url: 'https://cut.example/s1',
  price: 2900,
  currency: 'EUR',
});

const search = (json: unknown, token?: string, id = session) =>
  h.call('POST', `/api/v1/shopping/sessions/${id}/search`, { json, token });

before(async () => {
  h = await startHarness();
  await importCatalogFeed(GMC, {
    merchant: 'trail.example',
    merchantType: 'affiliate',
    trackingParams: { tag: 'tcs-20' },
  });
  await importCatalogFeed(ACP, { merchant: 'kitchen.example', merchantType: 'acp' });
  await importCatalogFeed(UCP, { merchant: 'home.example', merchantType: 'ucp' });
  await importCatalogFeed(SHIRTS, { merchant: 'shirts.example', merchantType: 'affiliate' });
  await importCatalogFeed(ODD, { merchant: 'odd.example', merchantType: 'affiliate' });
  await importCatalogFeed(CUT, { merchant: 'cut.example', merchantType: 'ucp' });
  session = (await h.call('POST', '/api/v1/shopping/sessions', { json: { title: 'Running' } })).body.id;
});
after(async () => {
  setClock(undefined);
  await h.close();
});

describe('shopping sessions', () => {
  it('creates a session and reads it back with no searches yet', async () => {
    const created = await h.call('POST', '/api/v1/shopping/sessions', { json: {} });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['created_at', 'id', 'recent_searches', 'title']);
    assert.equal(created.body.title, null);
    const read = await h.call('GET', `/api/v1/shopping/sessions/${created.body.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
  });

  it('validates the title', async () => {
    const res = await h.call('POST', '/api/v1/shopping/sessions', { json: { title: 'x'.repeat(201) } });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail[0].type, 'string_too_long');
    assert.deepEqual(res.body.detail[0].loc, ['body', 'title']);
  });

  it("another user's session answers 404 on every route, exactly like a missing one", async () => {
    const missing = '01a1fc6e-0000-7000-8000-0000000000ff';
    for (const [method, suffix, json] of [
      ['GET', '', undefined],
      ['POST', '/search', { query: 'shoes' }],
    ] as const) {
      const theirs = await h.call(method, `/api/v1/shopping/sessions/${session}${suffix}`, {
        json,
        token: h.other.token,
      });
      const none = await h.call(method, `/api/v1/shopping/sessions/${missing}${suffix}`, { json });
      assert.equal(theirs.status, 404);
      assert.deepEqual(theirs.body, { detail: 'Shopping session not found' });
      assert.equal(theirs.text, none.text);
    }
  });
});

describe('POST /shopping/sessions/{id}/search', () => {
  it('answers query, results, total_count and source, each result with every spec field', async () => {
    const res = await search({ query: 'trail running shoes' });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['query', 'results', 'source', 'total_count']);
    assert.equal(res.body.query, 'trail running shoes');
    assert.equal(res.body.source, 'merchant-catalog');
    const top = res.body.results[0];
    assert.deepEqual(top, {
      title: 'Trail Running Shoes',
      product_url: 'https://www.trail.example/p/a1?color=red',
      currency: 'USD',
      image_url: 'https://trail.example/a1.jpg',
      affiliate_url: 'https://www.trail.example/p/a1?color=red&tag=tcs-20',
      merchant_domain: 'trail.example',
      merchant_type: 'affiliate',
      source: 'merchant-catalog',
      price_cents: 9900,
      rating: 4.6,
    });
    const acp = res.body.results.find((r: { merchant_type: string }) => r.merchant_type === 'acp');
    assert.equal(acp.affiliate_url, acp.product_url, 'no tracking parameters: affiliate_url is product_url');
    assert.equal(acp.merchant_domain, 'kitchen.example');
    assert.equal('rating' in acp, false, 'an unknown rating is left out');
  });

  it('defaults to 10 results and counts every match in total_count, not just the page', async () => {
    const all = await search({ query: 'running shoes towel mug knife socks' });
    assert.equal(all.body.total_count, 13);
    assert.equal(all.body.results.length, 10);
    const page = await search({ query: 'running shoes towel mug knife socks', max_results: 3 });
    assert.equal(page.body.results.length, 3);
    assert.equal(page.body.total_count, 13);
    assert.deepEqual(page.body.results, all.body.results.slice(0, 3));
  });

  it('filters by merchant_type exactly and by price inclusively, total_count after filters', async () => {
    const towels = (extra: object) => search({ query: 'beach towel', ...extra });
    const byType = await towels({ merchant_type: 'ucp' });
    assert.deepEqual(
      byType.body.results.map((r: { title: string }) => r.title),
      ['Linen Beach Towel'],
    );
    assert.equal(byType.body.total_count, 1);
    const exact = await towels({ price_min_cents: 2500, price_max_cents: 2500 });
    assert.equal(exact.body.total_count, 3, 'both bounds are inclusive');
    const below = await towels({ price_max_cents: 2499 });
    assert.equal(below.body.total_count, 0);
    assert.deepEqual(below.body.results, []);
    const shoes = await search({ query: 'running shoes', price_min_cents: 9000, merchant_type: null });
    assert.deepEqual(
      shoes.body.results.map((r: { price_cents: number }) => r.price_cents).sort(),
      [15900, 9900],
    );
  });

  it('finds nothing, with total_count 0, for words no product has', async () => {
    const res = await search({ query: 'zeppelin' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      query: 'zeppelin',
      results: [],
      total_count: 0,
      source: 'merchant-catalog',
    });
  });

  it('ranks a small labelled set well: title and type matches above passing mentions', async () => {
    // Graded by hand: Exact 1, Partial 0.5; the kit and the socks only mention running shoes.
    const labels = new Map([
      ['Trail Running Shoes', 1],
      ['Trail Running Shoes GTX', 1],
      ['Road Running Shoes', 0.5],
      ['Running Shoe Cleaning Kit', 0],
      ['Wool Hiking Socks', 0],
    ]);
    const res = await search({ query: 'Trail running shoes' });
    const titles = res.body.results.map((r: { title: string }) => r.title);
    assert.deepEqual(titles.slice(0, 3).sort(), [
      'Road Running Shoes',
      'Trail Running Shoes',
      'Trail Running Shoes GTX',
    ]);
    assert.equal(ndcgAt(titles, labels, 10), 1);
    const plural = await search({ query: 'TOWELS for the BEACH' });
    assert.equal(plural.body.total_count, 3, 'case, plurals and stop-words handled');
  });

  it('validates every field in FastAPI format', async () => {
    const res = await search({
      query: '',
      merchant_type: 'amazon',
      max_results: 21,
      price_min_cents: -1,
      price_max_cents: 'x',
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'string_too_short',
        loc: ['body', 'query'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
      {
        type: 'literal_error',
        loc: ['body', 'merchant_type'],
        msg: "Input should be 'affiliate', 'ucp' or 'acp'",
        input: 'amazon',
        ctx: { expected: "'affiliate', 'ucp' or 'acp'" },
      },
      {
        type: 'less_than_equal',
        loc: ['body', 'max_results'],
        msg: 'Input should be less than or equal to 20',
        input: 21,
        ctx: { le: 20 },
      },
      {
        type: 'greater_than_equal',
        loc: ['body', 'price_min_cents'],
        msg: 'Input should be greater than or equal to 0',
        input: -1,
        ctx: { ge: 0 },
      },
      {
        type: 'int_parsing',
        loc: ['body', 'price_max_cents'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'x',
      },
    ]);
  });

  it('bounds: query up to 500 code points, max_results 1 to 20', async () => {
    const astral = '😀'.repeat(500); // 1,000 UTF-16 units, 500 code points
    assert.equal((await search({ query: astral })).status, 200);
    const long = await search({ query: `${astral}x` });
    assert.deepEqual(long.body.detail[0], {
      type: 'string_too_long',
      loc: ['body', 'query'],
      msg: 'String should have at most 500 characters',
      input: `${astral}x`,
      ctx: { max_length: 500 },
    });
    assert.equal(
      (await search({ query: 'shoes', max_results: 0 })).body.detail[0].type,
      'greater_than_equal',
    );
    assert.equal((await search({ query: 'shoes', max_results: 1 })).body.results.length, 1);
    assert.equal((await search({ query: 'shoes', max_results: '20' })).status, 200, 'lax integers');
    const missing = await search({ merchant_type: null });
    assert.deepEqual(missing.body.detail, [
      { type: 'missing', loc: ['body', 'query'], msg: 'Field required', input: { merchant_type: null } },
    ]);
  });

  it('price filters take any integer up to 2^53 - 1; past it 422, never a 500 from the store', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const widest = await search({ query: 'towel', price_min_cents: 0, price_max_cents: max });
    assert.equal(widest.status, 200);
    assert.ok(widest.body.total_count > 0, 'every towel is under the largest bound');
    const over = await search({ query: 'towel', price_max_cents: max + 1, max_results: 1e20 });
    assert.equal(over.status, 422);
    assert.deepEqual(over.body.detail, [
      {
        type: 'int_parsing_size',
        loc: ['body', 'max_results'],
        msg: 'Unable to parse input string as an integer, exceeded maximum size',
        input: 1e20,
      },
      {
        type: 'less_than_equal',
        loc: ['body', 'price_max_cents'],
        msg: `Input should be less than or equal to ${max}`,
        input: max + 1,
        ctx: { le: max },
      },
    ]);
    const asText = await search({ query: 'towel', price_min_cents: '99999999999999999999' });
    assert.equal(asText.body.detail[0].type, 'less_than_equal');
    // -2^63 is still an i64 (its bound refuses it); one below is not.
    const i64Min = await h.call('POST', `/api/v1/shopping/sessions/${session}/search`, {
      body: '{"query":"towel","price_min_cents":-9223372036854775808,"max_results":-9223372036854777856}',
      headers: { 'content-type': 'application/json' },
    });
    assert.match(
      i64Min.text,
      /"type":"greater_than_equal","loc":\["body","price_min_cents"\],[^}]*"input":-9223372036854775808,/,
    );
    assert.match(i64Min.text, /"type":"int_parsing_size","loc":\["body","max_results"\]/);
  });

  it('price_min_cents above price_max_cents is one value_error on the body, echoing it as sent', async () => {
    const body = { query: 'towel', price_min_cents: '3000', price_max_cents: 2000 };
    const res = await search(body);
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail, [
      {
        type: 'value_error',
        loc: ['body'],
        msg: 'Value error, price_min_cents must not be greater than price_max_cents',
        input: body,
        ctx: { error: {} },
      },
    ]);
  });

  it("records each search in the session's history, newest first and bounded", async () => {
    const created = await h.call('POST', '/api/v1/shopping/sessions', { json: { title: 'History' } });
    const id = created.body.id;
    await search(
      { query: 'beach towel', merchant_type: 'acp', max_results: 5, price_max_cents: 3000 },
      undefined,
      id,
    );
    const first = await h.call('GET', `/api/v1/shopping/sessions/${id}`);
    const [record] = first.body.recent_searches;
    assert.deepEqual(Object.keys(record).sort(), [
      'created_at',
      'id',
      'max_results',
      'merchant_type',
      'price_max_cents',
      'price_min_cents',
      'query',
      'source',
      'total_count',
    ]);
    assert.deepEqual(
      { ...record, id: undefined, created_at: undefined },
      {
        id: undefined,
        created_at: undefined,
        query: 'beach towel',
        merchant_type: 'acp',
        max_results: 5,
        price_min_cents: null,
        price_max_cents: 3000,
        total_count: 1,
        source: 'merchant-catalog',
      },
    );
    // Its total_count is every match, not the page answered.
    await search({ query: 'running shoes', max_results: 1 }, undefined, id);
    const paged = (await h.call('GET', `/api/v1/shopping/sessions/${id}`)).body.recent_searches[0];
    assert.deepEqual([paged.query, paged.total_count], ['running shoes', 5]);
    for (let i = 0; i < 21; i++) await search({ query: `mug ${i}` }, undefined, id);
    const read = await h.call('GET', `/api/v1/shopping/sessions/${id}`);
    assert.equal(read.body.recent_searches.length, 20);
    assert.deepEqual(
      read.body.recent_searches.slice(0, 2).map((s: { query: string }) => s.query),
      ['mug 20', 'mug 19'],
    );
    // Refused searches are not recorded, and another user's searches never land here.
    await search({ query: '' }, undefined, id);
    await search({ query: 'mug' }, h.other.token, id);
    const again = await h.call('GET', `/api/v1/shopping/sessions/${id}`);
    assert.equal(again.body.recent_searches[0].query, 'mug 20');
    // Listed by id, in created_at's order: the id is made at the service's clock (here an hour back).
    setClock(new Date(Date.now() - 3_600_000));
    try {
      assert.equal((await search({ query: 'mug an hour ago' }, undefined, id)).status, 200);
    } finally {
      setClock(undefined);
    }
    const listed = (await h.call('GET', `/api/v1/shopping/sessions/${id}`)).body.recent_searches;
    const times = listed.map((s: { created_at: string }) => s.created_at);
    assert.deepEqual(times, [...times].sort().reverse());
  });

  it('a word pasted with a soft hyphen in it finds the product, as the feed’s own are dropped', async () => {
    const res = await search({ query: 'Schnür\u00adsenkel' });
    assert.deepEqual(
      res.body.results.map((r: { title: string }) => r.title),
      ['Gewachste Schnürsenkel'],
    );
  });

  it('a "<" in a title that opens no HTML tag is kept as text, the tags around it dropped', async () => {
    const res = await search({ query: 'hdmi adapter' });
    assert.deepEqual(
      res.body.results.map((r: { title: string }) => r.title),
      ['USB-C <-> HDMI Adapter <2 Pack> 4K'],
    );
  });

  it('a title cut inside a surrogate pair answers well-formed text, the half left as U+FFFD', async () => {
    const res = await search({ query: 'cosy slippers' });
    assert.deepEqual(
      res.body.results.map((r: { title: string }) => r.title),
      ['Cosy Wool Slippers \ufffd'],
    );
  });

  it('answers one result per variant group: the best variant that passes the filters', async () => {
    const shirts = (extra: object) => search({ query: 'shirt', ...extra });
    const urls = (res: { body: { results: { product_url: string }[] } }) =>
      res.body.results.map((r) => r.product_url.replace('https://shirts.example/', ''));
    const all = await shirts({});
    assert.equal(all.status, 200);
    assert.deepEqual(urls(all), ['lin', 'ox-m'], 'S and M tie; the lower id stands for the group');
    assert.equal(all.body.total_count, 2, 'total_count counts groups');
    const blue = await search({ query: 'pale blue shirt' });
    assert.deepEqual(urls(blue), ['ox-l', 'lin'], 'the best-scoring variant');
    assert.equal(blue.body.total_count, 2);
    const inRange = await shirts({ price_min_cents: 3500, price_max_cents: 4000 });
    assert.deepEqual(urls(inRange), ['ox-s']);
    assert.equal(inRange.body.total_count, 1);
    assert.deepEqual(inRange.body.results[0], {
      title: 'Oxford Shirt S',
      product_url: 'https://shirts.example/ox-s',
      currency: 'USD',
      image_url: '',
      affiliate_url: 'https://shirts.example/ox-s',
      merchant_domain: 'shirts.example',
      merchant_type: 'affiliate',
      source: 'merchant-catalog',
      price_cents: 3900,
    });
  });

  it('serves a new catalogue version once the minute since the last check has passed', async () => {
    const before = await search({ query: 'kettle' });
    assert.equal(before.body.total_count, 0);
    await importCatalogFeed(
      `${ACP}\nK4,Glass Kettle,1.7 litres,https://kitchen.example/k4,Ferro,,45.00 USD,in_stock,Ferro\n`,
      {
        merchant: 'kitchen.example',
        merchantType: 'acp',
      },
    );
    assert.equal((await search({ query: 'kettle' })).body.total_count, 0, 'not re-checked within the minute');
    setClock(new Date(Date.now() + RECHECK_MS + 1000));
    const after = await search({ query: 'kettle' });
    assert.equal(after.body.total_count, 1);
    assert.equal(after.body.results[0].title, 'Glass Kettle');
    assert.equal((await search({ query: 'running shoes' })).body.total_count, 5, 'other merchants kept');
  });

  it('re-checks with one GET of the pointer a minute, shared by searches at once; a failed re-check waits its minute too', async () => {
    const reads: string[] = [];
    intercept(
      's3',
      (next, context) => async (args) => {
        if (context.commandName === 'GetObjectCommand') reads.push(args.input.Key);
        return next(args);
      },
      'initialize',
    );
    const at = async (ms: number, searches = 1) => {
      setClock(new Date(base + ms));
      reads.length = 0;
      for (const res of await Promise.all(
        Array.from({ length: searches }, () => search({ query: 'kettle' })),
      ))
        assert.equal(res.status, 200, res.text);
      return [...reads];
    };
    const base = now().getTime() + 10 * RECHECK_MS;
    try {
      // The catalogue loaded a minute before, whatever the tests before this one did.
      await at(-RECHECK_MS);
      assert.deepEqual(await at(0), ['catalog/snapshots/latest.json']);
      assert.deepEqual(await at(59_999), [], 'within the minute');
      // The same version: the pointer alone is read, once for both searches.
      assert.deepEqual(await at(60_000, 2), ['catalog/snapshots/latest.json']);
      const fault = inject('s3', { commands: /^GetObject/, failing: () => true, kind: 'server' });
      assert.ok((await at(120_000)).length > 0, 'the failed re-check is tried');
      assert.ok(fault.attempts() > 0, 'and it failed');
      assert.deepEqual(await at(179_999), [], 'and tried again a minute later, not at each search');
    } finally {
      clearFaults();
      setClock(undefined);
    }
  });
});
