import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  parseSnapshot,
  SnapshotError,
  serializeSnapshot,
  toSearchResult,
} from '../../shared/shopping/catalog.ts';
import {
  buildAffiliateUrl,
  FeedError,
  MAX_ITEM_GROUP_ID_LENGTH,
  MAX_LINK_LENGTH,
  MAX_TITLE_LENGTH,
  parseFeed,
  parsePrice,
} from '../../shared/shopping/feeds.ts';
import { cutAtWord } from '../../shared/strings.ts';
import { runGuarded } from '../support/hang-guard.ts';

const GMC_HEADER = [
  'id',
  'title',
  'description',
  'link',
  'image_link',
  'price',
  'sale_price',
  'availability',
  'brand',
  'gtin',
  'product_type',
  'google_product_category',
  'product_rating',
];

const tsv = (rows: string[][]) => rows.map((r) => r.join('\t')).join('\n') + '\n';

describe('parsePrice', () => {
  test('reads Merchant Center prices into minor units', () => {
    assert.deepEqual(parsePrice('15.00 USD'), { amount_minor: 1500, currency: 'USD' });
    assert.deepEqual(parsePrice('1,299.99 EUR'), { amount_minor: 129999, currency: 'EUR' });
    assert.deepEqual(parsePrice('USD 7.5'), { amount_minor: 750, currency: 'USD' });
    assert.deepEqual(parsePrice('12,50 eur'), { amount_minor: 1250, currency: 'EUR' });
    assert.deepEqual(parsePrice('1.299,99 EUR'), { amount_minor: 129999, currency: 'EUR' });
    assert.deepEqual(parsePrice('1500 JPY'), { amount_minor: 1500, currency: 'JPY' });
    assert.deepEqual(parsePrice('19.99', 'GBP'), { amount_minor: 1999, currency: 'GBP' });
    // No float drift: 0.29 * 100 is 28.999999999999996 in floating point.
    assert.deepEqual(parsePrice('0.29 USD'), { amount_minor: 29, currency: 'USD' });
  });

  test('refuses what is not a price', () => {
    for (const bad of ['', 'free', '$15.00', '15.00', '-3 USD', '15.00 USD EUR', '1,2,3 USD']) {
      assert.throws(() => parsePrice(bad), `accepted "${bad}"`);
    }
    // Two currencies, one each side: neither is taken.
    assert.throws(() => parsePrice('USD 15.00 EUR'), /"USD 15.00 EUR" is not a price like "15.00 USD"/);
  });
});

describe('prices with one separator and three digits after it', () => {
  test('are refused where the currency cannot tell thousands from decimals, read where it can', () => {
    // 1.299 EUR: 1,299.00 (German grouping) or 1.30 (a decimal point), a thousandfold difference.
    for (const bad of ['1.299 EUR', '15.999 USD', '1.299 JPY', '1,299 KWD']) {
      assert.throws(() => parsePrice(bad), /ambiguous/, bad);
    }
    assert.deepEqual(parsePrice('1,299 EUR'), { amount_minor: 129900, currency: 'EUR' }); // no 3-decimal euro
    assert.deepEqual(parsePrice('1.299 KWD'), { amount_minor: 1299, currency: 'KWD' }); // fils
    assert.deepEqual(parsePrice('1,299 JPY'), { amount_minor: 1299, currency: 'JPY' });
    assert.deepEqual(parsePrice('0.299 USD'), { amount_minor: 30, currency: 'USD' }); // no grouping starts at 0
    assert.deepEqual(parsePrice('1.2345 USD'), { amount_minor: 123, currency: 'USD' });
    assert.deepEqual(parsePrice('1.299,00 EUR'), { amount_minor: 129900, currency: 'EUR' });
    assert.deepEqual(parsePrice('1,299,000 KWD'), { amount_minor: 1299000000, currency: 'KWD' });
  });

  test('in a feed the row is skipped with the reason; a JSON number is always decimal', () => {
    const { products, errors } = parseFeed(
      [
        JSON.stringify({ id: 'a', title: 'Bike', url: 'https://shop.com/a', price: '1.299 EUR' }),
        JSON.stringify({
          id: 'b',
          title: 'Bell',
          url: 'https://shop.com/b',
          price: { value: 1.299, currency: 'USD' },
        }),
      ].join('\n'),
      { merchant: 'shop.com', merchantType: 'ucp' },
    );
    assert.deepEqual(
      products.map((p) => [p.id, p.price_cents]),
      [['b', 130]],
    );
    assert.equal(errors[0]!.line, 1);
    assert.match(errors[0]!.reason, /"1\.299" is ambiguous/);
  });
});

describe('prices with a leading 0 or dots grouping thousands', () => {
  test('"0,500" is half a unit, never five hundred: no thousands group starts with 0', () => {
    assert.deepEqual(parsePrice('0,500 EUR'), { amount_minor: 50, currency: 'EUR' });
    assert.deepEqual(parsePrice('0,500 KWD'), { amount_minor: 500, currency: 'KWD' });
    assert.deepEqual(parsePrice('0,995 USD'), { amount_minor: 100, currency: 'USD' });
    // The same price with a decimal point already read so.
    assert.deepEqual(parsePrice('0.500 EUR'), parsePrice('0,500 EUR'));
    // A leading 0 does not start a group of a longer number either.
    for (const bad of ['0,500,000 EUR', '00,500 EUR', '0.500.000 EUR']) {
      assert.throws(() => parsePrice(bad), /not a price/, bad);
    }
  });

  test('dots grouping thousands with no decimals are read: "1.299.000 IDR" as "1,299,000 IDR" is', () => {
    assert.deepEqual(parsePrice('1.299.000 IDR'), { amount_minor: 129900000, currency: 'IDR' }); // ISO: 2 decimals
    assert.deepEqual(parsePrice('1.299.000 IDR'), parsePrice('1,299,000 IDR'));
    assert.deepEqual(parsePrice('12.500.000 JPY'), { amount_minor: 12500000, currency: 'JPY' });
    assert.deepEqual(parsePrice('1.299.000,50 EUR'), { amount_minor: 129900050, currency: 'EUR' });
    // One dot group stays as it was: ambiguous where the currency cannot settle it.
    assert.throws(() => parsePrice('1.299 IDR'), /ambiguous/);
    for (const bad of ['1.29.000 IDR', '1.2990.000 IDR', '1.299.00 EUR']) {
      assert.throws(() => parsePrice(bad), /not a price/, bad);
    }
  });
});

describe('currencies', () => {
  test("ISO 4217's funds codes that Node.js does not list are read, in their own minor units", () => {
    assert.deepEqual(parsePrice('1.5 CLF'), { amount_minor: 15000, currency: 'CLF' });
    assert.deepEqual(parsePrice('2.25 UYW'), { amount_minor: 22500, currency: 'UYW' });
    assert.deepEqual(parsePrice('1500 UYI'), { amount_minor: 1500, currency: 'UYI' });
  });

  test('three letters that are no currency make the row skipped, in every format', () => {
    assert.throws(() => parsePrice('12 pcs'), /"PCS" is not an ISO 4217 currency code/);
    assert.throws(() => parsePrice('12.99 EUO'), /"EUO" is not an ISO 4217 currency code/);
    assert.throws(() => parsePrice('12.99', 'ABC'), /ISO 4217/);
    const opts = { merchant: 'shop.com', merchantType: 'ucp' as const };
    const tsvFeed = parseFeed(
      'id\ttitle\tlink\tprice\na\tRope\thttps://shop.com/a\t12 pcs\nb\tRope\thttps://shop.com/b\t12 CHF\n',
      opts,
    );
    assert.deepEqual(
      tsvFeed.products.map((p) => [p.id, p.price_cents, p.currency]),
      [['b', 1200, 'CHF']],
    );
    assert.deepEqual(
      tsvFeed.errors.map((e) => e.line),
      [2],
    );
    const row = (id: string, extra: object) =>
      JSON.stringify({ id, title: 'Rope', url: `https://shop.com/${id}`, ...extra });
    const jsonFeed = parseFeed(
      [
        row('a', { price: 1200, currency: 'dollars' }),
        row('b', { price: 1200, currency: 'usd' }),
        row('c', { price: { amount: 1200, currency: 'XYZ' } }),
      ].join('\n'),
      opts,
    );
    assert.deepEqual(
      jsonFeed.products.map((p) => [p.id, p.price_cents, p.currency]),
      [['b', 1200, 'USD']],
    );
    assert.deepEqual(
      jsonFeed.errors.map((e) => e.line),
      [1, 3],
    );
  });
});

describe('minor units, by ISO 4217', () => {
  test('a written price and a JSON Lines amount in minor units agree, where ICU shows fewer decimals than ISO has', () => {
    // ICU formats these with no decimals; ISO 4217 (payment APIs, ACP feeds) gives them 2 or 3.
    for (const [text, minor, currency] of [
      ['15000 IDR', 1500000, 'IDR'],
      ['4990 HUF', 499000, 'HUF'],
      ['25.000 IQD', 25000, 'IQD'],
      ['1500 JPY', 1500, 'JPY'],
      ['12.99 USD', 1299, 'USD'],
    ] as const) {
      assert.deepEqual(parsePrice(text), { amount_minor: minor, currency }, text);
      const row = JSON.stringify({
        id: 'a',
        title: 'Rope',
        url: 'https://shop.com/a',
        price: { amount: minor, currency },
      });
      const { products } = parseFeed(row, { merchant: 'shop.com', merchantType: 'ucp' });
      assert.equal(products[0]?.price_cents, parsePrice(text).amount_minor, `${text} in JSON Lines`);
    }
    // A dot before three digits is IQD's decimal point, as KWD's is.
    assert.deepEqual(parsePrice('1.299 IQD'), { amount_minor: 1299, currency: 'IQD' });
  });
});

describe('buildAffiliateUrl', () => {
  test('appends tracking parameters and keeps the existing query and fragment verbatim', () => {
    assert.equal(
      buildAffiliateUrl('https://shop.com/p/1?color=dark%20blue&size=m#reviews', {
        tag: 'tcs-20',
        utm_source: 'tcs',
      }),
      'https://shop.com/p/1?color=dark%20blue&size=m&tag=tcs-20&utm_source=tcs#reviews',
    );
  });

  test('replaces a parameter of the same name instead of duplicating it', () => {
    assert.equal(
      buildAffiliateUrl('https://shop.com/p?tag=old&x=1', { tag: 'new' }),
      'https://shop.com/p?x=1&tag=new',
    );
  });

  test('is the product URL when there are no tracking parameters', () => {
    assert.equal(buildAffiliateUrl('https://shop.com/p?x=1'), 'https://shop.com/p?x=1');
  });
});

describe('cutAtWord', () => {
  test('counts code points, as Python does, and never splits an emoji into a lone surrogate', () => {
    // A title of emoji one past the limit: cut in UTF-16 units it kept half as many, or half of one.
    for (const max of [4, 5, 500]) {
      const cut = cutAtWord('😀'.repeat(max + 1), max);
      assert.equal(cut, `${'😀'.repeat(max - 1)}…`, `max ${max}`);
      assert.ok(cut.isWellFormed(), `max ${max}`);
    }
    assert.equal(cutAtWord('😀😀😀 😀😀😀', 6), '😀😀😀…');
  });
});

describe('parseFeed: Google Merchant Center', () => {
  const feed = tsv([
    GMC_HEADER,
    [
      'SKU-1',
      'Trail Running Shoes',
      'Light <b>mesh</b> upper &amp; grippy sole',
      'https://www.Shop.com/p/1?ref=feed',
      'https://cdn.shop.com/1.jpg',
      '129.99 USD',
      '99.00 USD',
      'in stock',
      'Strideline',
      '0001',
      'Shoes > Running',
      '187',
      '4.6',
    ],
    [
      'SKU-2',
      'Beach Towel',
      'Cotton',
      'https://shop.com/p/2',
      '',
      '20.00 USD',
      '25.00 USD',
      'out of stock',
      '',
      '',
      '',
      'Home & Garden > Linens',
      'n/a',
    ],
  ]);

  test('normalises every field', () => {
    const { format, products, errors } = parseFeed(feed, {
      merchant: 'shop.com',
      merchantType: 'affiliate',
      trackingParams: { tag: 'tcs-20' },
    });
    assert.equal(format, 'gmc');
    assert.deepEqual(errors, []);
    assert.deepEqual(products[0], {
      id: 'SKU-1',
      title: 'Trail Running Shoes',
      description: 'Light mesh upper & grippy sole',
      product_url: 'https://www.shop.com/p/1?ref=feed',
      image_url: 'https://cdn.shop.com/1.jpg',
      brand: 'Strideline',
      product_type: 'Shoes > Running',
      category: '187',
      price_cents: 9900, // the lower sale price wins
      currency: 'USD',
      rating: 4.6,
      availability: 'in_stock',
      merchant_domain: 'shop.com',
      merchant_type: 'affiliate',
      affiliate_url: 'https://www.shop.com/p/1?ref=feed&tag=tcs-20',
      merchant: 'shop.com',
    });
    const towel = products[1]!;
    assert.equal(towel.price_cents, 2000, 'a higher sale price is ignored');
    assert.equal(towel.rating, null);
    assert.equal(towel.availability, 'out_of_stock');
    assert.equal(towel.image_url, '');
  });

  test('reads CSV with RFC 4180 quoting: commas, doubled quotes and newlines inside fields', () => {
    const csv =
      'id,title,description,link,price\r\n' +
      '1,"Sofa, 3-seat","The ""Cloud"" sofa\r\nwith two lines",https://shop.com/sofa,"1,299.00 USD"\r\n' +
      '2,Lamp,Plain,https://shop.com/lamp,15 USD\r\n';
    const { products, errors } = parseFeed(csv, { merchant: 'shop.com', merchantType: 'affiliate' });
    assert.deepEqual(errors, []);
    assert.equal(products[0]!.title, 'Sofa, 3-seat');
    assert.equal(products[0]!.description, 'The "Cloud" sofa with two lines');
    assert.equal(products[0]!.price_cents, 129900);
    assert.equal(products[1]!.affiliate_url, 'https://shop.com/lamp');
  });

  test('skips bad rows and reports the line each starts on', () => {
    const text =
      'id\ttitle\tlink\tprice\n' +
      'a\tGood\thttps://shop.com/a\t5.00 USD\n' +
      'b\t\thttps://shop.com/b\t5.00 USD\n' + // line 3: no title
      'c\t"Two\nlines"\thttps://shop.com/c\tcheap\n' + // line 4 (to 5): bad price
      'd\tElsewhere\thttps://evil.example/d\t5.00 USD\n' + // line 6: foreign host
      'a\tAgain\thttps://shop.com/a2\t5.00 USD\n' + // line 7: duplicate id
      'e\tExtra\thttps://shop.com/e\t5.00 USD\tsurplus\n' + // line 8: too many fields
      '\n' +
      'f\tFine\thttps://shop.com/f\t0,99 EUR\n';
    const { products, errors } = parseFeed(text, { merchant: 'shop.com', merchantType: 'ucp' });
    assert.deepEqual(
      products.map((p) => p.id),
      ['a', 'f'],
    );
    assert.deepEqual(
      errors.map((e) => e.line),
      [3, 4, 6, 7, 8],
    );
    assert.match(errors[0]!.reason, /title/);
    assert.match(errors[1]!.reason, /price/);
    assert.match(errors[2]!.reason, /evil\.example/);
    assert.match(errors[3]!.reason, /duplicate id "a" \(first on line 2\)/);
    assert.match(errors[4]!.reason, /5 fields/);
  });

  test('reads the named character references shop systems write into titles', () => {
    const { products } = parseFeed(
      tsv([
        ['id', 'title', 'description', 'link', 'price'],
        [
          '1',
          'Caf&eacute; Table &ndash; Oak&reg;',
          'Men&rsquo;s, &frac12; price',
          'https://shop.com/1',
          '5 USD',
        ],
        [
          '2',
          '&Eacute;T&Eacute; &AMP; Kaf&shy;fee&trade;',
          '&unknown; &#xD800; &#233;',
          'https://shop.com/2',
          '5 USD',
        ],
      ]),
      { merchant: 'shop.com', merchantType: 'ucp' },
    );
    assert.deepEqual(
      products.map((p) => [p.title, p.description]),
      [
        ['Café Table – Oak®', 'Men’s, ½ price'],
        // A soft hyphen is dropped; an unknown name is left as written, half a surrogate pair is U+FFFD.
        ['ÉTÉ & Kaffee™', '&unknown; \uFFFD é'],
      ],
    );
  });

  test('fields a result shows are bounded: a long title is cut at a word, a long link skips its row', () => {
    // Unbounded, 20 results of 360 KB titles made the search response pass Lambda's 6 MB (a 500).
    const words = 'Extra-wide cotton beach towel '.repeat(30_000);
    const path = `https://shop.com/${'p'.repeat(MAX_LINK_LENGTH - 'https://shop.com/'.length)}`;
    const { products, errors } = parseFeed(
      tsv([
        ['id', 'title', 'link', 'image_link', 'price'],
        ['long-title', words, 'https://shop.com/1', 'https://shop.com/1.jpg', '5 USD'],
        ['long-image', 'Towel', 'https://shop.com/2', `${path}.jpg`, '5 USD'],
        ['longest-link', 'Towel', path, '', '5 USD'],
        ['long-link', 'Towel', `${path}x`, '', '5 USD'],
      ]),
      { merchant: 'shop.com', merchantType: 'ucp' },
    );
    const title = products[0]!.title;
    assert.equal([...title].length <= MAX_TITLE_LENGTH, true);
    assert.ok(title.length > MAX_TITLE_LENGTH - 40, 'cut near the limit');
    assert.ok(title.endsWith('…') && words.startsWith(`${title.slice(0, -1)} `), 'cut after a whole word');
    assert.equal(products[1]!.image_url, '');
    assert.equal(products[2]!.product_url, path);
    assert.deepEqual(
      products.map((p) => p.id),
      ['long-title', 'long-image', 'longest-link'],
    );
    assert.deepEqual(errors, [{ line: 5, reason: `link is longer than ${MAX_LINK_LENGTH} characters` }]);
  });

  test('the link limit holds for the URL as stored: text that percent-encodes past it skips the row (image: left out)', () => {
    // 1,000 "é" are 1,017 characters as written and 6,017 as a URL (each "é" is %C3%A9).
    const encoded = `https://shop.com/${'é'.repeat(1000)}`;
    const { products, errors } = parseFeed(
      tsv([
        ['id', 'title', 'link', 'image_link', 'price'],
        ['wide-image', 'Towel', 'https://shop.com/1', `${encoded}.jpg`, '5 USD'],
        ['wide-link', 'Towel', encoded, '', '5 USD'],
      ]),
      { merchant: 'shop.com', merchantType: 'ucp' },
    );
    assert.deepEqual(
      products.map((p) => [p.id, p.image_url]),
      [['wide-image', '']],
    );
    assert.deepEqual(errors, [
      { line: 3, reason: `link is longer than ${MAX_LINK_LENGTH} characters as a URL` },
    ]);
  });

  test('a row ending in delimiters has no extra fields: only a value past the header is a shift', () => {
    for (const [delimiter, text] of [
      [
        '\t',
        'id\ttitle\tlink\tprice\n1\tPan\thttps://shop.com/1\t10.00 USD\t\n2\tPot\thttps://shop.com/2\t11.00 USD\t \t\n',
      ],
      [
        ',',
        'id,title,link,price\n1,Pan,https://shop.com/1,10.00 USD,\n2,Pot,https://shop.com/2,11.00 USD,,\n',
      ],
    ]) {
      const { products, errors } = parseFeed(text!, { merchant: 'shop.com', merchantType: 'ucp' });
      assert.deepEqual(
        products.map((p) => [p.id, p.price_cents]),
        [
          ['1', 1000],
          ['2', 1100],
        ],
        delimiter,
      );
      assert.deepEqual(errors, [], delimiter);
    }
  });

  test('a TSV whose header follows blank lines is read as TSV, rows reported on their own lines', () => {
    const text =
      '\r\n  \r\n' + // lines 1-2: an empty line and one of spaces
      'id\ttitle\tlink\tprice\r\n' + // line 3
      'a\tLamp, brass\thttps://shop.com/a\t15.00 USD\r\n' +
      'b\t\thttps://shop.com/b\t5.00 USD\r\n'; // line 5: no title
    const { format, products, errors } = parseFeed(text, { merchant: 'shop.com', merchantType: 'ucp' });
    assert.equal(format, 'gmc');
    assert.deepEqual(
      products.map((p) => [p.id, p.title, p.price_cents]),
      [['a', 'Lamp, brass', 1500]],
    );
    assert.deepEqual(
      errors.map((e) => e.line),
      [5],
    );
  });

  test('throws for files that are bad as a whole', () => {
    const opts = { merchant: 'shop.com', merchantType: 'affiliate' as const };
    assert.throws(() => parseFeed('', opts), FeedError);
    assert.throws(
      () => parseFeed('id\ttitle\tdescription\nx\ty\tz\n', opts),
      /missing required column.*link.*price/,
    );
    assert.throws(() => parseFeed('<?xml version="1.0"?><rss></rss>', opts), /XML/);
    assert.throws(() => parseFeed(new Uint8Array([0x1f, 0x8b, 8, 0]), opts), /gzip/);
    assert.throws(() => parseFeed(new Uint8Array([0x69, 0x64, 0xff, 0xfe, 0x00]), opts), /not UTF-8/);
    assert.throws(
      () => parseFeed('id,title,link,price\n1,"open,https://shop.com/1,1 USD\n2,b,c,d\n', opts),
      /line 2.*never closed/,
    );
    assert.throws(
      () => parseFeed('id,title,link,price\n1,x,https://elsewhere.com/1,1 USD\n', opts),
      /no valid rows/,
    );
    assert.throws(() => parseFeed('id,title,link,price\n', { ...opts, merchant: 'not a domain' }), /domain/);
    assert.throws(
      () =>
        parseFeed('id,title,link,price\n', {
          merchant: 'shop.com',
          merchantType: 'ucp',
          trackingParams: { tag: 'x' },
        }),
      /affiliate/,
    );
    assert.throws(() => parseFeed('{"id":1}\n', { ...opts, format: 'gmc' }), /JSON Lines/);
  });

  test('reads pipe- and tilde-delimited files, as Merchant Center and affiliate networks export them', () => {
    const opts = { merchant: 'shop.com', merchantType: 'affiliate' as const };
    for (const delimiter of ['|', '~']) {
      const text = [
        ['id', 'title', 'description', 'link', 'price', 'item_group_id'],
        ['a', 'Lamp, brass', 'Warm; dimmable', 'https://shop.com/a', '1,299.00 USD', 'L-1'],
        ['b', '"Desk | Oak"', 'Solid', 'https://shop.com/b', '15,00 EUR', ''],
        ['c', 'Chair', 'Plain', 'https://shop.com/c', '5.00 USD', '', 'surplus'],
      ]
        .map((row) => row.join(delimiter))
        .join('\n');
      const { format, products, errors } = parseFeed(text, opts);
      assert.equal(format, 'gmc');
      assert.deepEqual(
        products.map((p) => [p.id, p.title, p.description, p.price_cents, p.currency, p.item_group_id]),
        [
          ['a', 'Lamp, brass', 'Warm; dimmable', 129900, 'USD', 'L-1'],
          ['b', 'Desk | Oak', 'Solid', 1500, 'EUR', undefined],
        ],
        delimiter,
      );
      assert.deepEqual(errors, [
        { line: 4, reason: `row has 7 fields but the header has 6 (unquoted "${delimiter}"?)` },
      ]);
    }
  });

  test('a header-only file is valid and empty', () => {
    assert.deepEqual(
      parseFeed('id,title,link,price\n', { merchant: 'shop.com', merchantType: 'affiliate' }).products,
      [],
    );
  });
});

describe('parseFeed: long hostile fields', () => {
  /**
   * The feed parsed in a child process (runGuarded: a hang guard, not a budget). The code before needed
   * hours for the price below (cubic: 10 s at 1,000 spaces, 494 s at 4,000) and minutes for the title
   * (quadratic: 2.7 s at 40,000 `<`); each takes milliseconds now.
   */
  const parseInChild = (feed: string) =>
    runGuarded<ReturnType<typeof parseFeed>>(
      `import { readFileSync } from 'node:fs';
       import { parseFeed } from './shared/shopping/feeds.ts';
       const feed = readFileSync(0, 'utf8');
       console.log(JSON.stringify(parseFeed(feed, { merchant: 'hostile.example', merchantType: 'ucp' })));`,
      feed,
    );
  const feed = (...rows: string[]) => ['id\ttitle\tlink\tprice', ...rows].join('\n');

  test('a price with long runs of spaces that is no price skips its row at once', () => {
    const spaces = ' '.repeat(20_000);
    const { products, errors } = parseInChild(
      feed(
        `p1\tLamp\thttps://hostile.example/1\tUSD${spaces}1${spaces}x`,
        `p2\tRug\thttps://hostile.example/2\tUSD${spaces}15.00`,
      ),
    );
    assert.deepEqual(
      errors.map((e) => e.line),
      [2],
    );
    assert.match(errors[0]!.reason, /is not a price like "15\.00 USD"$/);
    assert.deepEqual(
      products.map((p) => [p.id, p.price_cents]),
      [['p2', 1500]],
    );
  });

  test('a text of many "<" with no ">" is read at once, as text, its tags dropped', () => {
    const many = '<'.repeat(400_000);
    const { products } = parseInChild(
      feed(
        `p1\t${many} Lamp\thttps://hostile.example/1\t5.00 USD`,
        `p2\tLamp <b>bright</b> ${many}\thttps://hostile.example/2\t5.00 USD`,
      ),
    );
    assert.deepEqual(
      products.map((p) => p.title),
      [`${'<'.repeat(MAX_TITLE_LENGTH - 1)}…`, `Lamp bright ${'<'.repeat(MAX_TITLE_LENGTH - 13)}…`],
    );
  });
});

describe('parseFeed: sale prices and their effective period', () => {
  // Regular 50.00, sale 30.00; the import runs at noon UTC on 15 November 2026.
  const at = new Date('2026-11-15T12:00:00Z');
  const rows = [
    ['ended', '2026-10-01T00:00:00Z/2026-10-31T23:59:59Z'],
    ['not-yet', '2026-11-27T00:00-0800/2026-11-30T23:59-0800'],
    ['running', '2026-11-01T00:00:00+0100/2026-11-30T23:59:00+0100'],
    ['last-day', '2026-11-01 / 2026-11-15'],
    ['unreadable', 'all of November'],
    ['no-period', ''],
  ];
  const text = tsv([
    ['id', 'title', 'link', 'price', 'sale_price', 'sale_price_effective_date'],
    ...rows.map(([id, period]) => [
      id!,
      'Kettle',
      `https://shop.com/${id}`,
      '50.00 USD',
      '30.00 USD',
      period!,
    ]),
  ]);

  test('the sale price counts only within its period; outside it, or unreadable, the regular price', () => {
    const { products, errors } = parseFeed(text, { merchant: 'shop.com', merchantType: 'affiliate', at });
    assert.deepEqual(errors, []);
    assert.deepEqual(
      products.map((p) => [p.id, p.price_cents]),
      [
        ['ended', 5000],
        ['not-yet', 5000],
        ['running', 3000],
        ['last-day', 3000],
        ['unreadable', 5000],
        ['no-period', 3000],
      ],
    );
  });

  test('JSON Lines: the period as a string or as {startTime, endTime}', () => {
    const line = (id: string, period: unknown) =>
      JSON.stringify({
        id,
        title: 'Kettle',
        url: `https://shop.com/${id}`,
        price: { amount: 5000, currency: 'USD' },
        sale_price: { amount: 3000 },
        salePriceEffectiveDate: period,
      });
    const { products } = parseFeed(
      [
        line('ended', { startTime: '2026-10-01T00:00:00Z', endTime: '2026-11-01T00:00:00Z' }),
        line('running', { startTime: '2026-11-15T00:00:00Z', endTime: '2026-11-16T00:00:00Z' }),
        line('string', '2026-11-14T00:00:00Z/2026-11-15T11:59:59Z'),
      ].join('\n'),
      { merchant: 'shop.com', merchantType: 'ucp', at },
    );
    assert.deepEqual(
      products.map((p) => [p.id, p.price_cents]),
      [
        ['ended', 5000],
        ['running', 3000],
        ['string', 5000],
      ],
    );
  });
});

describe('parseFeed: the edges a shopper meets', () => {
  const opts = { merchant: 'shop.com', merchantType: 'affiliate' as const };
  const at = new Date('2026-11-15T12:00:00Z');

  test('a price of zero skips the row, written or in minor units', () => {
    const written = parseFeed(
      'id,title,link,price\n1,Mug,https://shop.com/1,0.00 USD\n2,Cup,https://shop.com/2,0.01 USD\n',
      opts,
    );
    assert.deepEqual(
      written.products.map((p) => [p.id, p.price_cents]),
      [['2', 1]],
    );
    assert.deepEqual(written.errors, [{ line: 2, reason: 'price must be greater than zero' }]);
    const json = parseFeed(
      '{"id":"1","title":"Mug","link":"https://shop.com/1","price":{"amount":0,"currency":"USD"}}\n' +
        '{"id":"2","title":"Cup","link":"https://shop.com/2","price":{"amount":1,"currency":"USD"}}\n',
      opts,
    );
    assert.deepEqual(
      json.products.map((p) => [p.id, p.price_cents]),
      [['2', 1]],
    );
    assert.deepEqual(json.errors, [{ line: 1, reason: 'price must be greater than zero' }]);
  });

  test("a link on a subdomain is the merchant's; a host that only ends in its name is not", () => {
    const { products, errors } = parseFeed(
      'id,title,link,price\n1,Mug,https://eu.shop.com/1,5 USD\n2,Cup,https://myshop.com/2,5 USD\n',
      opts,
    );
    assert.deepEqual(
      products.map((p) => p.merchant_domain),
      ['eu.shop.com'],
    );
    assert.deepEqual(errors, [{ line: 3, reason: 'link host myshop.com is not on merchant shop.com' }]);
  });

  test('a sale price in another currency is ignored; a sale ends at its end, not after it', () => {
    const { products } = parseFeed(
      tsv([
        ['id', 'title', 'link', 'price', 'sale_price', 'sale_price_effective_date'],
        ['euro-sale', 'Kettle', 'https://shop.com/1', '50.00 USD', '30.00 EUR', ''],
        [
          'ends-now',
          'Kettle',
          'https://shop.com/2',
          '50.00 USD',
          '30.00 USD',
          '2026-11-01T00:00:00Z/2026-11-15T12:00:00Z',
        ],
        [
          'starts-now',
          'Kettle',
          'https://shop.com/3',
          '50.00 USD',
          '30.00 USD',
          '2026-11-15T12:00:00Z/2026-11-16T00:00:00Z',
        ],
      ]),
      { ...opts, at },
    );
    assert.deepEqual(
      products.map((p) => [p.id, p.price_cents, p.currency]),
      [
        ['euro-sale', 5000, 'USD'],
        ['ends-now', 5000, 'USD'],
        ['starts-now', 3000, 'USD'],
      ],
    );
  });

  test(`a title of exactly ${MAX_TITLE_LENGTH} characters and an image link of exactly ${MAX_LINK_LENGTH} are kept whole`, () => {
    // The bounds docs/shopping.md states.
    assert.deepEqual([MAX_TITLE_LENGTH, MAX_LINK_LENGTH], [500, 2000]);
    const title = `${'Towel '.repeat((MAX_TITLE_LENGTH - 2) / 6)}XL`;
    assert.equal([...title].length, MAX_TITLE_LENGTH);
    const image = `https://shop.com/${'p'.repeat(MAX_LINK_LENGTH - 'https://shop.com/'.length)}`;
    const { products } = parseFeed(
      tsv([
        ['id', 'title', 'link', 'image_link', 'price'],
        ['1', title, 'https://shop.com/1', image, '5 USD'],
      ]),
      opts,
    );
    assert.equal(products[0]!.title, title);
    assert.equal(products[0]!.image_url, image);
  });

  test('a rating of 5 is kept; past 5 it is no rating', () => {
    const { products } = parseFeed(
      'id,title,link,price,product_rating\n1,Mug,https://shop.com/1,5 USD,5\n2,Cup,https://shop.com/2,5 USD,5.01\n',
      opts,
    );
    assert.deepEqual(
      products.map((p) => p.rating),
      [5, null],
    );
  });

  test('a header with as many commas as tabs is read as TSV', () => {
    const { products } = parseFeed(
      tsv([
        ['id', 'title', 'link', 'price', 'notes, care, fit, size, cut'],
        ['1', 'Mug, large', 'https://shop.com/1', '5 USD', 'a, b, c'],
      ]),
      opts,
    );
    assert.deepEqual(
      products.map((p) => p.title),
      ['Mug, large'],
    );
  });

  test('what is refused as a whole says why', () => {
    assert.throws(() => parseFeed('[{"id":"1"}]\n', opts), /JSON array; send JSON Lines/);
    assert.throws(
      () => parseFeed('id,title,link,price\n', { ...opts, merchant: 'shop.com/our shop' }),
      /not a domain name/,
    );
    assert.throws(
      () => parseFeed('id,title,link,price\n', { ...opts, trackingParams: { ' ': 'x' } }),
      /tracking parameter names must not be empty/,
    );
    // UTF-16 with either byte order mark, NUL bytes and a file of empty fields are no feed at all.
    assert.throws(
      () => parseFeed(new Uint8Array([0xff, 0xfe, 0x69, 0x00]), opts),
      /UTF-16; export it as UTF-8/,
    );
    assert.throws(
      () => parseFeed(new Uint8Array([0xfe, 0xff, 0x00, 0x69]), opts),
      /UTF-16; export it as UTF-8/,
    );
    assert.throws(
      () => parseFeed('id,title,link,price\n1,Mu\u0000g,https://shop.com/1,5 USD\n', opts),
      /not text \(it contains NUL bytes\)/,
    );
    assert.throws(() => parseFeed(',,,\n\t\n', opts), /feed has no header row/);
  });

  test('a url column without a link column is the ACP feed', () => {
    const row = '1,Mug,https://shop.com/1,5 USD\n';
    assert.equal(parseFeed(`id,title,url,price\n${row}`, opts).format, 'acp');
    assert.equal(parseFeed(`id,title,link,price\n${row}`, opts).format, 'gmc');
  });

  test('JSON Lines: availability as a boolean, and a negative minor-unit amount refused as such', () => {
    const { products, errors } = parseFeed(
      [
        {
          id: '1',
          title: 'Mug',
          link: 'https://shop.com/1',
          price: { amount: 500, currency: 'USD' },
          availability: true,
        },
        {
          id: '2',
          title: 'Cup',
          link: 'https://shop.com/2',
          price: { amount: 500, currency: 'USD' },
          availability: false,
        },
        { id: '3', title: 'Jug', link: 'https://shop.com/3', price: { amount: -500, currency: 'USD' } },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n'),
      opts,
    );
    assert.deepEqual(
      products.map((p) => [p.id, p.availability]),
      [
        ['1', 'in_stock'],
        ['2', 'out_of_stock'],
      ],
    );
    assert.deepEqual(errors, [{ line: 3, reason: 'price -500 is not an integer amount in minor units' }]);
  });
});

describe('parseFeed: a sale period without a time zone', () => {
  test('is read in UTC, whatever the zone of the machine importing it', () => {
    // 11:00 to 13:00 with no zone, checked at noon UTC: running in UTC; on a machine in New York, read
    // as local time, it would not start until 16:00 UTC.
    const text = tsv([
      ['id', 'title', 'link', 'price', 'sale_price', 'sale_price_effective_date'],
      ['p', 'Kettle', 'https://shop.com/p', '50.00 USD', '30.00 USD', '2026-11-15T11:00/2026-11-15T13:00:00'],
    ]);
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      const { products } = parseFeed(text, {
        merchant: 'shop.com',
        merchantType: 'affiliate',
        at: new Date('2026-11-15T12:00:00Z'),
      });
      assert.equal(products[0]!.price_cents, 3000);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('parseFeed: Agentic Commerce Protocol flat feed', () => {
  test('is detected by its columns and accepts price as number plus currency', () => {
    const text =
      'item_id,title,description,url,brand,image_url,price,currency,availability,seller_name\n' +
      'acp-1,"Chef Knife, 8""",Forged steel,https://store.example.org/k,Ferro,https://store.example.org/k.jpg,89.5,usd,InStock,Ferro Store\n' +
      'acp-2,Kettle,Glass,https://store.example.org/t,Culina,,45.00 EUR,,https://schema.org/PreOrder,Culina\n';
    const { format, products, errors } = parseFeed(text, {
      merchant: 'store.example.org',
      merchantType: 'acp',
    });
    assert.equal(format, 'acp');
    assert.deepEqual(errors, []);
    assert.equal(products[0]!.title, 'Chef Knife, 8"');
    assert.equal(products[0]!.price_cents, 8950);
    assert.equal(products[0]!.currency, 'USD');
    assert.equal(products[0]!.availability, 'in_stock');
    assert.equal(products[0]!.merchant_type, 'acp');
    assert.equal(products[1]!.price_cents, 4500);
    assert.equal(products[1]!.currency, 'EUR');
    assert.equal(products[1]!.availability, 'pre_order');
  });

  test("reads the product's rating from product_review_rating, never the store's", () => {
    const text =
      'id,title,link,price,store_review_rating,product_review_count,product_review_rating,enable_search\n' +
      'acp-1,Kettle,https://store.example.org/k,45.00 EUR,4.9,12,4.2,true\n' +
      'acp-2,Teapot,https://store.example.org/t,25.00 EUR,4.9,0,,true\n';
    const { format, products } = parseFeed(text, { merchant: 'store.example.org', merchantType: 'acp' });
    assert.equal(format, 'acp');
    assert.deepEqual(
      products.map((p) => p.rating),
      [4.2, null],
    );
  });
});

describe('parseFeed: enable_search false withholds a product from search', () => {
  const acp = (...rows: string[]) => ['id,title,link,price,enable_search', ...rows].join('\n');
  const options = { merchant: 'store.example.org', merchantType: 'acp' } as const;

  test('a row the merchant keeps out of search is withheld, valid or not; others are imported', () => {
    const { products, errors, withheld } = parseFeed(
      acp(
        'a1,Kettle,https://store.example.org/k,45.00 EUR,true',
        'a2,Hidden,https://store.example.org/h,25.00 EUR,false',
        'a3,Also hidden,https://store.example.org/x,25.00 EUR, FALSE ',
        'a4,,not a link,no price,false',
        'a5,No flag,https://store.example.org/n,5.00 EUR,',
      ),
      options,
    );
    assert.deepEqual(
      products.map((p) => p.id),
      ['a1', 'a5'],
    );
    assert.deepEqual([errors, withheld], [[], 3]);
    const json = parseFeed(
      [
        JSON.stringify({
          id: 'j1',
          title: 'Shown',
          url: 'https://store.example.org/1',
          price: '5.00',
          currency: 'EUR',
        }),
        JSON.stringify({
          id: 'j2',
          title: 'Held',
          url: 'https://store.example.org/2',
          price: '5.00',
          currency: 'EUR',
          enable_search: false,
        }),
        JSON.stringify({
          id: 'j3',
          title: 'Held',
          url: 'https://store.example.org/3',
          price: '5.00',
          currency: 'EUR',
          enableSearch: 'false',
        }),
      ].join('\n'),
      { merchant: 'store.example.org', merchantType: 'ucp' },
    );
    assert.deepEqual([json.products.map((p) => p.id), json.withheld], [['j1'], 2]);
  });

  test('a feed that withholds every row is applied empty, not refused like a feed of bad rows', () => {
    const { products, withheld } = parseFeed(
      acp('a1,Kettle,https://store.example.org/k,45.00 EUR,false', 'a2,,,,'),
      options,
    );
    assert.deepEqual([products, withheld], [[], 1]);
    assert.throws(() => parseFeed(acp('a2,,,,'), options), /no valid rows/);
  });
});

describe('parseFeed: JSON Lines with minor units', () => {
  test('reads price objects, bare minor-unit numbers and decimal strings', () => {
    const lines = [
      JSON.stringify({
        id: 'u1',
        title: 'Hoodie',
        url: 'https://store.example.org/h',
        image_url: 'https://store.example.org/h.jpg',
        brand: { name: 'Loomwell' },
        price: { amount: 4999, currency: 'USD' },
        sale_price: { amount: 3999 },
        categories: ['Apparel', 'Hoodies'],
        rating: { value: 4.2 },
      }),
      '',
      JSON.stringify({
        id: 'u2',
        title: 'Socks',
        url: 'https://store.example.org/s',
        price: 1200,
        currency: 'EUR',
      }),
      JSON.stringify({ id: 'u3', title: 'Hat', link: 'https://store.example.org/a', price: '15.00 USD' }),
      JSON.stringify({
        id: 'u4',
        title: 'Cap',
        url: 'https://store.example.org/c',
        price: { amount: 12.5, currency: 'USD' },
      }),
      '[1,2]',
      '{"id": "u6", oops}',
    ];
    const { format, products, errors } = parseFeed(lines.join('\n'), {
      merchant: 'https://www.store.example.org/',
      merchantType: 'ucp',
    });
    assert.equal(format, 'jsonl');
    assert.deepEqual(
      products.map((p) => [p.id, p.price_cents, p.currency]),
      [
        ['u1', 3999, 'USD'],
        ['u2', 1200, 'EUR'],
        ['u3', 1500, 'USD'],
      ],
    );
    assert.equal(products[0]!.brand, 'Loomwell');
    assert.equal(products[0]!.category, 'Apparel > Hoodies');
    assert.equal(products[0]!.rating, 4.2);
    assert.deepEqual(
      errors.map((e) => e.line),
      [5, 6, 7],
    );
    assert.match(errors[0]!.reason, /minor units/);
    assert.match(errors[1]!.reason, /not a JSON object/);
    assert.match(errors[2]!.reason, /invalid JSON/);
  });
});

describe('parseFeed: JSON Lines price_cents', () => {
  test('a price_cents given as a string of digits is minor units, as the number would be', () => {
    const line = (id: string, cents: unknown, currency: string) =>
      JSON.stringify({ id, title: 'Mug', url: `https://shop.com/${id}`, price_cents: cents, currency });
    const { products, errors } = parseFeed(
      [
        line('n', 4999, 'USD'),
        line('s', '4999', 'USD'),
        line('jpy', '1299', 'JPY'),
        line('kwd', '12500', 'KWD'),
        line('decimal', '49.99', 'USD'),
      ].join('\n'),
      { merchant: 'shop.com', merchantType: 'ucp' },
    );
    assert.deepEqual(
      products.map((p) => [p.id, p.price_cents, p.currency]),
      [
        ['n', 4999, 'USD'],
        ['s', 4999, 'USD'],
        ['jpy', 1299, 'JPY'],
        ['kwd', 12500, 'KWD'],
      ],
    );
    assert.deepEqual(
      errors.map((e) => e.line),
      [5],
    );
    assert.match(errors[0]!.reason, /minor units/);
  });
});

describe('parseFeed: item_group_id (variants)', () => {
  const groups = (text: string, merchantType: 'affiliate' | 'ucp' | 'acp' = 'affiliate') => {
    const { products, errors } = parseFeed(text, { merchant: 'shop.com', merchantType });
    assert.deepEqual(errors, []);
    return products.map((p) => [p.id, p.item_group_id]);
  };

  test('is read from Merchant Center TSV and CSV under its spellings, trimmed; empty is no group', () => {
    assert.deepEqual(
      groups(
        tsv([
          ['id', 'title', 'link', 'price', 'item_group_id'],
          ['S', 'Shirt S', 'https://shop.com/s', '15 USD', 'SHIRT-1'],
          ['M', 'Shirt M', 'https://shop.com/m', '15 USD', '  SHIRT-1 '],
          ['Mug', 'Mug', 'https://shop.com/mug', '9 USD', ''],
        ]),
      ),
      [
        ['S', 'SHIRT-1'],
        ['M', 'SHIRT-1'],
        ['Mug', undefined],
      ],
    );
    for (const header of ['g:item_group_id', 'Item Group ID', 'item-group-id']) {
      assert.deepEqual(
        groups(`id,title,link,price,${header}\nS,Shirt,https://shop.com/s,15 USD,"SHIRT, 1"\n`),
        [['S', 'SHIRT, 1']],
        header,
      );
    }
  });

  test('is read from the ACP flat feed as item_group_id or group_id', () => {
    for (const column of ['item_group_id', 'group_id']) {
      const text =
        `item_id,title,url,price,seller_name,${column}\n` +
        'k1,Knife 8in,https://shop.com/k1,89.50 USD,Ferro,KNIFE\n' +
        'k2,Knife 10in,https://shop.com/k2,99.50 USD,Ferro,KNIFE\n';
      assert.deepEqual(
        groups(text, 'acp'),
        [
          ['k1', 'KNIFE'],
          ['k2', 'KNIFE'],
        ],
        column,
      );
    }
  });

  test('is read from JSON Lines as item_group_id, itemGroupId or group_id, a number as its digits', () => {
    const line = (id: string, extra: object) =>
      JSON.stringify({
        id,
        title: 'Hoodie',
        url: `https://shop.com/${id}`,
        price: 4999,
        currency: 'USD',
        ...extra,
      });
    assert.deepEqual(
      groups(
        [
          line('a', { item_group_id: 'HOOD' }),
          line('b', { itemGroupId: ' HOOD ' }),
          line('c', { group_id: 'HOOD' }),
          line('d', { item_group_id: 1234 }),
          line('e', { item_group_id: null }),
          line('f', {}),
        ].join('\n'),
        'ucp',
      ),
      [
        ['a', 'HOOD'],
        ['b', 'HOOD'],
        ['c', 'HOOD'],
        ['d', '1234'],
        ['e', undefined],
        ['f', undefined],
      ],
    );
  });

  test(`one longer than ${MAX_ITEM_GROUP_ID_LENGTH} characters skips the row with the reason`, () => {
    const longest = 'é'.repeat(MAX_ITEM_GROUP_ID_LENGTH); // code points, not UTF-16 units or bytes
    const { products, errors } = parseFeed(
      tsv([
        ['id', 'title', 'link', 'price', 'item_group_id'],
        ['ok', 'Shirt', 'https://shop.com/ok', '15 USD', longest],
        ['long', 'Shirt', 'https://shop.com/long', '15 USD', `${longest}x`],
      ]),
      { merchant: 'shop.com', merchantType: 'affiliate' },
    );
    assert.deepEqual(
      products.map((p) => [p.id, p.item_group_id]),
      [['ok', longest]],
    );
    assert.deepEqual(errors, [
      { line: 3, reason: `item_group_id is longer than ${MAX_ITEM_GROUP_ID_LENGTH} characters` },
    ]);
  });
});

describe('catalog snapshot', () => {
  const { products } = parseFeed(
    'id,title,link,price,product_rating\n1,Lamp,https://shop.com/1,15 USD,4.5\n2,Rug,https://shop.com/2,99 USD,\n',
    { merchant: 'shop.com', merchantType: 'affiliate', trackingParams: { tag: 't' } },
  );

  test('round-trips products and metadata', () => {
    const text = serializeSnapshot(products, { source: 'main', created_at: '2025-01-02T03:04:05.000Z' });
    const snap = parseSnapshot(new TextEncoder().encode(text));
    assert.equal(snap.version, 1);
    assert.equal(snap.source, 'main');
    assert.equal(snap.created_at, '2025-01-02T03:04:05.000Z');
    assert.deepEqual(snap.products, products);
  });

  test('keeps item_group_id, and reads a snapshot written before the column existed as no groups', () => {
    const grouped = [{ ...products[0]!, item_group_id: 'LAMP' }, products[1]!];
    const text = serializeSnapshot(grouped, { source: 'main' });
    assert.deepEqual(parseSnapshot(text).products, grouped);
    // The same document as an import before item_group_id wrote it: no column, shorter rows.
    const old = text.replace(',"item_group_id"', '').replace(',"LAMP"]', ']').replace(',null]', ']');
    assert.doesNotMatch(old, /item_group_id|LAMP|null\]/);
    assert.deepEqual(parseSnapshot(old).products, products);
    assert.throws(() => parseSnapshot(text.replace('"LAMP"', '""')), /item_group_id/);
  });

  test('refuses truncated, foreign-version and malformed documents', () => {
    const text = serializeSnapshot(products, { source: 'main' });
    assert.throws(() => parseSnapshot(text.slice(0, text.length / 2)), SnapshotError);
    assert.throws(() => parseSnapshot(text.replace('"version":1', '"version":2')), /unsupported version 2/);
    assert.throws(() => parseSnapshot(text.replace('"count":2', '"count":3')), /truncated/);
    assert.throws(() => parseSnapshot(text.replace('1500,', '"1500",')), /price_cents/);
    assert.throws(() => parseSnapshot(text.replace('1500,', '-1,')), /price_cents is not a non-negative/);
    assert.throws(() => parseSnapshot(text.replace(',4.5,', ',1e999,')), /rating is not a number/);
    assert.throws(
      () => parseSnapshot(text.replace(/"created_at":"[^"]*"/, '"created_at":"soon"')),
      /created_at/,
    );
    assert.throws(
      () => parseSnapshot(text.replace('"affiliate_url",', '"affiliate_link",')),
      /missing columns: affiliate_url/,
    );
    // Bytes that are no UTF-8 are refused, not read as U+FFFD.
    const bytes = new TextEncoder().encode(text.replace('"Lamp"', '"L?mp"'));
    bytes[bytes.indexOf(0x3f)] = 0xff;
    assert.throws(() => parseSnapshot(bytes), {
      name: 'SnapshotError',
      message: 'Invalid catalog snapshot: not UTF-8 text',
    });
  });

  test('maps to the API search result, leaving out an unknown rating', () => {
    const [lamp, rug] = products;
    assert.deepEqual(toSearchResult(lamp!, 'main'), {
      title: 'Lamp',
      product_url: 'https://shop.com/1',
      currency: 'USD',
      image_url: '',
      affiliate_url: 'https://shop.com/1?tag=t',
      merchant_domain: 'shop.com',
      merchant_type: 'affiliate',
      source: 'main',
      price_cents: 1500,
      rating: 4.5,
    });
    assert.equal('rating' in toSearchResult(rug!, 'main'), false);
  });
});
