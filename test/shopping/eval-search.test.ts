import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { evaluate, loadWands, main, ndcgAt, percentile } from '../../scripts/eval-search.ts';
import { PLAIN_BM25_OPTIONS } from '../../shared/shopping/search-index.ts';

const close = (actual: number | null, expected: number) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${actual} is not ${expected}`);

describe('NDCG@k', () => {
  const labels = new Map([
    ['a', 1],
    ['b', 0.5],
    ['c', 0],
  ]);

  test('is 1 for the ideal order and uses log2(rank + 1) discounts', () => {
    close(ndcgAt(['a', 'b', 'c'], labels), 1);
    // DCG = 0.5/log2(2) + 1/log2(3); ideal = 1 + 0.5/log2(3).
    close(ndcgAt(['b', 'a'], labels), (0.5 + 1 / Math.log2(3)) / (1 + 0.5 / Math.log2(3)));
  });

  test('counts unlabelled results as 0 and cuts at k', () => {
    close(ndcgAt(['x', 'a'], labels), 1 / Math.log2(3) / (1 + 0.5 / Math.log2(3)));
    close(ndcgAt(['x', 'a'], labels, 1), 0);
  });

  test('is null when nothing relevant is labelled', () => {
    assert.equal(ndcgAt(['c'], new Map([['c', 0]])), null);
  });

  test('percentiles are nearest-rank', () => {
    const v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    assert.equal(percentile(v, 50), 5);
    assert.equal(percentile(v, 95), 10);
    assert.equal(percentile(v, 1), 1);
  });
});

describe('eval-search on a WANDS-layout fixture', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wands-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // Extra columns as in the real data set, and a quoted field with a tab and a quote inside.
  writeFileSync(
    join(dir, 'product.csv'),
    [
      'product_id\tproduct_name\tproduct_class\tcategory hierarchy\tproduct_description\tproduct_features\trating_count\taverage_rating\treview_count',
      '1\toak coffee table\tCoffee Tables\tFurniture / Living Room / Tables\tsolid oak\tcolor:brown|material:oak\t10\t4.5\t8',
      '2\tglass coffee table\tCoffee Tables\tFurniture / Living Room / Tables\ttempered glass\t\t\t\t',
      '3\toak bookshelf\tBookcases\tFurniture / Office\t"a ""tall""\tshelf"\t\t\t\t',
      '4\tcouch\tCouches\tFurniture / Living Room\tthree seats\t\t\t\t',
      '5\tsofa cover\tSlipcovers\tHome / Textiles\tstretch fabric\t\t\t\t',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'query.csv'),
    'query_id\tquery\tquery_class\n0\toak coffee table\tCoffee Tables\n1\tsofa\tSofas\n2\tlamp\tLamps\n',
  );
  writeFileSync(
    join(dir, 'label.csv'),
    [
      'id\tquery_id\tproduct_id\tlabel',
      '0\t0\t1\tExact',
      '1\t0\t2\tPartial',
      '2\t0\t3\tIrrelevant',
      '3\t1\t4\tExact', // "couch": no shared word, so never retrieved
      '4\t1\t5\tPartial',
      '5\t2\t1\tIrrelevant', // nothing relevant: query 2 is not judged
    ].join('\n'),
  );

  test('loads the three files, extra columns and quoting included', () => {
    const data = loadWands(dir);
    assert.equal(data.products.length, 5);
    assert.equal(data.products[2]!.description.startsWith('a "tall"\tshelf'), true);
    assert.equal(data.products[0]!.rating, 4.5);
    assert.equal(data.queries.length, 3);
    assert.equal(data.labels.get('1')!.get('4'), 1);
  });

  test('computes NDCG@10 by hand-checkable numbers', () => {
    const data = loadWands(dir);
    for (const options of [{}, PLAIN_BM25_OPTIONS]) {
      const run = evaluate(data, 'x', options);
      assert.equal(run.judged, 2);
      // Query 0: products 1, 2, 3 in that order → ideal. Query 1: only the Partial is found.
      const q0 = run.perQuery.get('0')!;
      const q1 = run.perQuery.get('1')!;
      close(q0, 1);
      close(q1, 0.5 / (1 + 0.5 / Math.log2(3)));
      close(run.ndcg10, (q0 + q1) / 2);
      assert.ok(run.p50Ms <= run.p95Ms && run.p95Ms <= run.p99Ms);
    }
  });

  test('prints both runs and the difference', () => {
    const out = main([dir]);
    assert.match(out, /products 5, queries 3, judged 2/);
    assert.match(out, /bm25f \(ours\)\s+0\.6900/);
    assert.match(out, /bm25 baseline\s+0\.6900/);
    assert.match(out, /delta NDCG@10 \+0\.0000/);
    assert.throws(() => main([]), /usage/);
  });
});
