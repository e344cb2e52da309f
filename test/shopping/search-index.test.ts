import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { CatalogProduct, MerchantType } from '../../shared/shopping/catalog.ts';
import { generateCatalog } from '../../shared/shopping/generate-catalog.ts';
import { buildIndex, type SearchQuery, TopK } from '../../shared/shopping/search-index.ts';
import { MIN_CORRECTED_LENGTH, oneEditApart, spellingCorrector } from '../../shared/shopping/spelling.ts';
import { foldText, queryTerms, stem, tokenize } from '../../shared/shopping/text.ts';
import { runGuarded } from '../support/hang-guard.ts';

let seq = 0;
const product = (fields: Partial<CatalogProduct>): CatalogProduct => {
  const id = fields.id ?? `p${String(++seq).padStart(4, '0')}`;
  return {
    id,
    title: '',
    description: '',
    product_url: `https://shop.com/${id}`,
    image_url: '',
    brand: '',
    product_type: '',
    category: '',
    price_cents: 1000,
    currency: 'USD',
    rating: null,
    availability: 'in_stock',
    merchant_domain: 'shop.com',
    merchant_type: 'affiliate',
    affiliate_url: `https://shop.com/${id}`,
    merchant: 'shop.com',
    ...fields,
  };
};

const ids = (index: ReturnType<typeof buildIndex>, q: SearchQuery) =>
  index.search(q).results.map((r) => r.id);

describe('tokenisation', () => {
  test('folds case and accents, splits on punctuation, stems plurals', () => {
    assert.deepEqual(tokenize('Crème Brûlée DISHES, 2-pack'), [
      'creme',
      'brulee',
      'dish',
      '2',
      'pack',
      '2pack',
    ]);
    assert.deepEqual(tokenize('Straße Æble'), ['strasse', 'aeble']);
    assert.equal(stem('batteries'), 'battery');
    assert.equal(stem('flies'), 'fly', 'five letters are enough for -ies');
    assert.equal(stem('ties'), 'tie');
    assert.equal(stem('glasses'), 'glass');
    assert.equal(stem('boxes'), 'box');
    assert.equal(stem('shoes'), 'shoe');
    assert.equal(stem('dress'), 'dress');
    assert.equal(stem('cactus'), 'cactus');
    assert.equal(stem('constructor'), 'constructor', 'no prototype key is a plural');
  });

  test('reads symbols that spell out letters as the shopper does', () => {
    assert.deepEqual(tokenize('Acme™ Widget, Brand℠ Service'), ['acme', 'widget', 'brand', 'service']);
    assert.deepEqual(tokenize('Ⅻ Clock, 25℃'), ['xii', 'clock', '25', 'c']);
    const index = buildIndex([product({ id: 'widget', title: 'Acme™ Widget' })]);
    assert.deepEqual(ids(index, { query: 'acme widget' }), ['widget']);
  });

  test('an invisible joiner or soft hyphen inside a word does not cut it in two', () => {
    for (const hint of ['\u00ad', '\u200c', '\u200d', '\u2060', '\ufeff'])
      assert.deepEqual(queryTerms(`sho${hint}es`), ['shoe'], JSON.stringify(hint));
    // Persian writes the plural's suffix joined or after a zero-width non-joiner: one word either way.
    assert.deepEqual(queryTerms('کتاب\u200cها'), queryTerms('کتابها'));
    const index = buildIndex([product({ id: 'books', title: 'کتاب\u200cها' })]);
    assert.deepEqual(ids(index, { query: 'کتابها' }), ['books']);
    // A zero-width space is a break (Thai and Khmer mark words with it).
    assert.deepEqual(queryTerms('blue\u200bshoes'), ['blue', 'shoe']);
  });

  test('drops stop-words from queries unless nothing else is left', () => {
    assert.deepEqual(queryTerms('a pair of shoes for the beach'), ['pair', 'shoe', 'beach']);
    assert.deepEqual(queryTerms('The Who'), ['the', 'who']);
  });
});

describe('Chinese, Japanese and Korean', () => {
  const catalog = [
    product({ id: 'earphones', title: '蓝牙耳机 降噪' }), // Bluetooth earphones, noise-cancelling
    product({ id: 'coffee', title: '全自动咖啡机' }), // automatic coffee machine
    product({ id: 'jp-earphones', title: 'ワイヤレスイヤホン Bluetooth 5.3' }), // wireless earphones
    product({ id: 'bag', title: '本革 バッグ' }), // genuine leather bag
    product({ id: 'face-pack', title: 'フェイス パック 10枚' }), // face pack, 10 sheets
    product({ id: 'ko-bag', title: '여성 가죽가방' }), // women's leather bag
  ];
  const index = buildIndex(catalog);

  test('a word is found inside the unspaced text it is written in', () => {
    assert.deepEqual(ids(index, { query: '耳机' }), ['earphones']);
    assert.deepEqual(ids(index, { query: '咖啡' }), ['coffee']);
    assert.deepEqual(ids(index, { query: 'イヤホン' }), ['jp-earphones']);
    assert.deepEqual(ids(index, { query: '가방' }), ['ko-bag']);
    assert.equal(index.search({ query: '耳机' }).total_count, 1, '机 alone (machine) is no match');
  });

  test('a lone character is a word of its own: 茶 (tea) finds 茶 500g', () => {
    assert.deepEqual(tokenize('茶 500g'), ['茶', '500g']);
    assert.deepEqual(ids(buildIndex([product({ id: 'tea', title: '茶 500g' })]), { query: '茶' }), ['tea']);
  });

  test('a voiced kana is not its unvoiced neighbour: バッグ (bag) does not find パック (pack)', () => {
    assert.deepEqual(ids(index, { query: 'バッグ' }), ['bag']);
    assert.deepEqual(ids(index, { query: 'パック' }), ['face-pack']);
    assert.deepEqual(ids(index, { query: 'ﾊﾞｯｸﾞ' }), ['bag'], 'half-width kana fold to full width');
  });
});

describe('Thai, Lao, Khmer and Myanmar', () => {
  const catalog = [
    product({ id: 'coffee', title: 'กาแฟคั่วบด 500g' }), // ground roasted coffee
    product({ id: 'tshirt', title: 'เสื้อยืดผ้าฝ้าย' }), // cotton T-shirt
    product({ id: 'shoes', title: 'รองเท้าวิ่งผู้ชาย' }), // men's running shoes
    product({ id: 'lao-coffee', title: 'ກາເຟສົດ' }), // fresh coffee (Lao)
    product({ id: 'khmer-coffee', title: 'កាហ្វេខ្មៅ' }), // black coffee (Khmer)
  ];
  const index = buildIndex(catalog);

  test('a run is cut into dictionary words, so a word is found inside it', () => {
    assert.deepEqual(tokenize('กาแฟคั่วบด'), ['กาแฟ', 'คั่ว', 'บด']);
    assert.deepEqual(ids(index, { query: 'กาแฟ' }), ['coffee']); // before, the run was one word
    assert.deepEqual(ids(index, { query: 'รองเท้า' }), ['shoes']);
    assert.deepEqual(ids(index, { query: 'ກາເຟ' }), ['lao-coffee']);
    assert.deepEqual(ids(index, { query: 'កាហ្វេ' }), ['khmer-coffee']);
    // A query written as one run is cut the same way: เสื้อยืด (T-shirt) is เสื้อ (shirt) + ยืด (stretch).
    assert.deepEqual(ids(index, { query: 'เสื้อยืด' }), ['tshirt']);
  });

  test('a run of a million characters is cut at once (ICU alone takes time quadratic in the run)', () => {
    // In a child process (runGuarded: a hang guard, not a budget). Cut whole, this run took
    // minutes (1.6 s at 128,000 characters, four times that at each doubling); in pieces, a second.
    const cut = runGuarded(
      `import { tokenize } from './shared/shopping/text.ts';
       const words = tokenize('กาแฟคั่วบด'.repeat(100_000));
       console.log(JSON.stringify([words.length, ...new Set(words)]));`,
    );
    assert.deepEqual(cut, [300_000, 'กาแฟ', 'คั่ว', 'บด']);
  });

  test('a run is not cut in pieces inside a surrogate pair: a Myanmar digit past U+FFFF at the seam stays', () => {
    // Pieces are 1,000 code units; the pair here is at 999–1000.
    const words = tokenize(`${'က'.repeat(999)}\u{116D0}${'က'.repeat(10)}`);
    assert.ok(words.every((word) => word.isWellFormed()));
    assert.ok(words.join('').includes('\u{116D0}'));
  });

  test('a vowel NFKD takes apart (Thai and Lao SARA AM, Lao HO NO and HO MO) is cut as written', () => {
    // Folding decomposed ำ into ํ + า, which the dictionary does not know: กางเกงสีดำ "black trousers"
    // was cut กาง เกง สีดํ า, so neither กางเกง "trousers" nor ดำ "black" found it.
    const trousers = buildIndex([
      product({ id: 'trousers', title: 'กางเกงสีดำ' }),
      product({ id: 'lao-fruit', title: 'ໝາກໄມ້ສົດ' }), // fresh fruit (Lao)
    ]);
    assert.deepEqual(tokenize('กางเกงสีดำ'), ['กางเกง', 'สี', 'ดำ']);
    assert.deepEqual(ids(trousers, { query: 'กางเกง' }), ['trousers']);
    assert.deepEqual(ids(trousers, { query: 'ดำ' }), ['trousers']);
    assert.deepEqual(ids(trousers, { query: 'ດຳ' }), []); // Lao's own SARA AM is kept too
    assert.deepEqual(tokenize('ກາເຟດຳ'), ['ກາເຟ', 'ດຳ']);
    // ໝ and its spelling in two letters, ຫມ, are one word to the index.
    assert.deepEqual(ids(trousers, { query: 'ໝາກ' }), ['lao-fruit']);
    assert.deepEqual(ids(trousers, { query: 'ຫມາກ' }), ['lao-fruit']);
  });

  test('a text is cut as the plain rules cut it, each run by itself, however often its pieces recur', () => {
    // The reference: fold the whole text, take its words, cut each Thai/Lao/Khmer/Myanmar run alone
    // with ICU and each CJK run in pairs, no pieces kept. tokenize() scans ASCII by hand and keeps
    // short pieces' words and runs' cuts; the small vocabulary makes pieces recur in other contexts
    // (after a hyphenated ASCII word, whose words the scanner has emitted already, or not).
    const segmenter = new Intl.Segmenter('th', { granularity: 'word' });
    const cjk = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\u30fc';
    const unspaced = '\\p{sc=Thai}\\p{sc=Lao}\\p{sc=Khmer}\\p{sc=Myanmar}';
    const runs = new RegExp(`[${cjk}]+|[${unspaced}]+|[^${cjk}${unspaced}]+`, 'gu');
    const dictionaryRun = new RegExp(`^[${unspaced}]`, 'u');
    const cjkRun = new RegExp(`^[${cjk}]`, 'u');
    const anyUnspaced = new RegExp(`[${cjk}${unspaced}]`, 'u');
    const reference = (text: string): string[] => {
      const words: string[] = [];
      for (const [compound] of foldText(text).matchAll(
        /[\p{L}\p{N}\p{M}]+(?:[-\u2010'\u2019][\p{L}\p{N}\p{M}]+)*/gu,
      )) {
        const parts = compound.split(/[-\u2010'\u2019]/);
        for (const part of parts)
          for (const [run] of part.matchAll(runs)) {
            if (dictionaryRun.test(run)) {
              for (const piece of segmenter.segment(run)) if (piece.isWordLike) words.push(piece.segment);
            } else if (cjkRun.test(run)) {
              const chars = Array.from(run);
              if (chars.length === 1) words.push(run);
              for (let i = 0; i + 1 < chars.length; i++) words.push(chars[i]! + chars[i + 1]!);
            } else words.push(run);
          }
        if (parts.length > 1 && !anyUnspaced.test(compound)) words.push(parts.join(''));
      }
      return words.map(stem);
    };
    const pieces = [
      // Thai (the last ดำ spelled apart, as NFKD spells it), Lao, Khmer and Myanmar, and the scripts'
      // own punctuation (๏ ។ ၊), which is in their runs but no letter.
      ...['กาแฟ', 'คั่วบด', 'สีดำ', 'น้ำ', 'อะราบิก้า', '๕๐๐', '๏', '\u0e14\u0e4d\u0e32'],
      ...['ກາເຟ', 'ດຳ', 'ໝາກ', 'ຫມາກ'],
      ...['កាហ្វេ', 'ខ្មៅ', '។'],
      ...['ကော်ဖီ', 'မြန်မာ', '၊'],
      ...['Wi', 'fi', 'Levi', 's', 'abc', 'é', 'Crème', '500', '2'],
      ...['蓝牙', '耳机', 'バッグ'],
      ...[' ', ' ', ' ', '.', ',', '(', ')', '/', '!', '\u00a0', '\u200b', '-', '-', '\u2010', "'", '\u2019'],
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), (chosen) => {
        const text = chosen.join('');
        assert.deepEqual(tokenize(text), reference(text));
      }),
      { seed: 7, numRuns: 1_000 },
    );
  });

  test('a word the dictionary does not know is cut alike in the index and the query', () => {
    const arabica = buildIndex([product({ id: 'arabica', title: 'กาแฟอะราบิก้า' })]);
    assert.deepEqual(tokenize('อะราบิก้า'), ['อะ', 'รา', 'บิ', 'ก้า']);
    assert.deepEqual(ids(arabica, { query: 'อะราบิก้า' }), ['arabica']);
  });
});

describe('ranking', () => {
  const catalog = [
    product({ id: 'title-lamp', title: 'Brass Table Lamp', description: 'Warm light for reading.' }),
    product({
      id: 'desc-lamp',
      title: 'Reading Nook Armchair',
      description: 'Pairs well with a table lamp.',
    }),
    product({ id: 'nike-shoe', title: 'Air Runner 2', brand: 'Nike', description: 'Road running shoe.' }),
    product({
      id: 'other-shoe',
      title: 'Trail Runner',
      brand: 'Salomon',
      description: 'Inspired by Nike classics.',
    }),
    product({ id: 'beach-shoes', title: 'Water Shoes for the Beach', description: 'Quick drying.' }),
    product({
      id: 'beach-novel',
      title: 'The Beach',
      description: 'A novel about a pair of friends and the sea.',
    }),
    product({ id: 'creme', title: 'Crème Brûlée Torch', description: 'Kitchen tool.' }),
    product({ id: 'coffee-table', title: 'Oak Coffee Table', description: 'Solid oak.' }),
    product({ id: 'table-coffee', title: 'Table Top Coffee Grinder', description: 'Burr grinder.' }),
  ];
  const index = buildIndex(catalog);

  test('a title match beats a description match', () => {
    assert.deepEqual(ids(index, { query: 'table lamp' }).slice(0, 2), ['title-lamp', 'desc-lamp']);
  });

  test('a brand query finds the brand first', () => {
    assert.deepEqual(ids(index, { query: 'nike' }), ['nike-shoe', 'other-shoe']);
  });

  test('plurals and accents match their plain forms', () => {
    assert.equal(ids(index, { query: 'lamps' })[0], 'title-lamp');
    assert.equal(ids(index, { query: 'creme brulee' })[0], 'creme');
    assert.equal(ids(index, { query: 'CRÈMES' })[0], 'creme');
  });

  test('stop-words do not dominate a chatty query', () => {
    // "the", "a", "of", "for" appear all over the novel; the shoes are what was asked for.
    assert.equal(ids(index, { query: 'a pair of shoes for the beach' })[0], 'beach-shoes');
  });

  test('words side by side in the title rank above the same words apart', () => {
    assert.equal(ids(index, { query: 'coffee table' })[0], 'coffee-table');
  });

  test('an unknown word or an empty query matches nothing', () => {
    assert.deepEqual(index.search({ query: 'zeppelin' }), { results: [], total_count: 0 });
    assert.deepEqual(index.search({ query: '   ' }), { results: [], total_count: 0 });
  });

  test('results carry the product fields and a score, best first', () => {
    const { results } = index.search({ query: 'table' });
    assert.equal(
      results[0]!.product_url,
      'https://shop.com/title-lamp'.replace('title-lamp', results[0]!.id),
    );
    for (let i = 1; i < results.length; i++) assert.ok(results[i - 1]!.score >= results[i]!.score);
  });

  test('a word in the title counts most, then the brand, the category, the description', () => {
    // Every field one word long, so only the fields' weights tell the four apart.
    const field = (id: string, at: 'title' | 'brand' | 'product_type' | 'description') =>
      product({
        id,
        title: 'alpha',
        brand: 'beta',
        product_type: 'gamma',
        description: 'delta',
        [at]: 'oak',
      });
    const fields = buildIndex([
      field('a-description', 'description'),
      field('b-category', 'product_type'),
      field('c-brand', 'brand'),
      field('d-title', 'title'),
    ]);
    assert.deepEqual(ids(fields, { query: 'oak' }), ['d-title', 'c-brand', 'b-category', 'a-description']);
  });

  test('the category field holds the product type and the category; a bare taxonomy id is no word', () => {
    const categories = buildIndex([
      product({ id: 'lamp', title: 'Desk Light', product_type: 'Lighting', category: 'Home > Lamps' }),
      product({ id: 'rug', title: 'Wool Rug', category: '2271' }),
    ]);
    assert.deepEqual(ids(categories, { query: 'lighting' }), ['lamp']);
    assert.deepEqual(ids(categories, { query: 'lamps' }), ['lamp']);
    assert.deepEqual(categories.search({ query: '2271' }), { results: [], total_count: 0 });
  });

  test('a title pair skips its stop-words: "pair of shoes" is asked for as "pair shoes"', () => {
    const pairs = buildIndex([
      product({ id: 'shoes', title: 'Pair of Shoes' }),
      product({ id: 'other', title: 'Pair' }),
    ]);
    const score = (query: string) => pairs.matchAll({ query }).find((m) => m.product.id === 'shoes')!.score;
    assert.ok(score('pair of shoes') > score('shoes pair'), 'the pair, in order, adds its bigram');
  });
});

describe('sizes', () => {
  const index = buildIndex([
    product({ id: '500', title: 'Water bottle 500 ml' }),
    product({ id: '1000', title: 'Water bottle 1 L' }),
    product({ id: '750', title: 'Water bottle 750ml' }),
    product({ id: 'mug', title: 'Enamel mug 350ml' }),
    product({ id: 'flask', title: 'Vacuum flask 1.5 l' }),
    product({ id: 'jug', title: 'Jug, 750 ml of glass' }),
  ]);

  test('a number and its unit are one word too, written with a space or not', () => {
    assert.deepEqual(tokenize('Bottle 750 ml'), ['bottle', '750', 'ml', '750ml']);
    assert.deepEqual(tokenize('750\u00a0ml, 750\u202fml'), ['750', 'ml', '750ml', '750', 'ml', '750ml']);
    assert.deepEqual(tokenize('5 lbs'), ['5', 'lbs', '5lb']);
    // Not a decimal's tail, a number or unit inside a compound, a count, or a word that is no unit.
    assert.deepEqual(tokenize('1.5 l 1,5 l'), ['1', '5', 'l', '1', '5', 'l']);
    assert.deepEqual(tokenize('a-1 g, 1 g-force, 2 pack, 10 blue'), [
      ...['a', '1', 'a1', 'g', '1', 'g', 'force', 'gforce'],
      ...['2', 'pack', '10', 'blue'],
    ]);
  });

  test('a query finds the size in either spelling, and keeps its number and unit', () => {
    // The number and the unit stay: they match a size written otherwise (55", "100 Watt"), which the
    // size alone lost (this session's review).
    assert.deepEqual(queryTerms('750 ml jug'), ['750', 'ml', '750ml', 'jug']);
    assert.deepEqual(queryTerms('750ml jug'), ['750ml', 'jug']);
    fc.assert(
      fc.property(
        fc.nat({ max: 5000 }),
        fc.constantFrom('ml', 'l', 'g', 'kg', 'oz', 'lbs', 'inch', 'gb', 'mah'),
        (number, unit) => {
          const [joined] = queryTerms(`${number}${unit}`);
          assert.ok(queryTerms(`${number} ${unit}`).includes(joined!), `${number} ${unit}`);
        },
      ),
      { seed: 7, numRuns: 200 },
    );
    // Each spelling found the other's product, or the bottle of another size first.
    assert.deepEqual(ids(index, { query: '750 ml' }).slice(0, 2).sort(), ['750', 'jug']);
    assert.deepEqual(ids(index, { query: '750ml' }).sort(), ['750', 'jug']);
    assert.equal(ids(index, { query: 'water bottle 500ml' })[0], '500');
    assert.equal(ids(index, { query: 'bottle 1l' })[0], '1000');
    assert.equal(ids(index, { query: '350 ml mug' })[0], 'mug');
    const tvs = buildIndex([
      product({ id: 'tv55', title: '55" 4K Smart TV' }),
      product({ id: 'tv65', title: '65" 4K Smart TV' }),
      product({ id: 'tv43', title: '43" Full HD TV' }),
    ]);
    assert.equal(ids(tvs, { query: '55 inch tv' })[0], 'tv55');
  });

  test('a group of thousands is no size: "10 000 mAh" is not 000mah', () => {
    assert.deepEqual(tokenize('10 000 mAh'), ['10', '000', 'mah']);
    assert.deepEqual(tokenize('2 x 500 ml'), ['2', 'x', '500', 'ml', '500ml']);
  });
});

describe('typos', () => {
  const index = buildIndex([
    product({ id: 'sneakers', title: 'Running Sneakers' }),
    product({ id: 'sneakers-2', title: 'Canvas Sneakers, white' }),
    product({ id: 'headphones', title: 'Wireless Headphones' }),
    product({ id: 'bike', title: 'City Bike' }),
    product({ id: 'bottle', title: 'Water bottle 250ml' }),
    product({ id: 'speaker', title: 'Bluetooth Speaker' }),
    product({ id: 'canoe', title: 'Touring Canoe' }),
  ]);

  test('a word the catalogue does not hold is read as its commonest word one edit away', () => {
    // A letter missing, one wrong, one extra, two swapped.
    for (const query of ['snekers', 'sneakrs', 'sneakerz', 'snaekers', 'SNEKERS'])
      assert.deepEqual(ids(index, { query }).sort(), ['sneakers', 'sneakers-2'], query);
    assert.deepEqual(ids(index, { query: 'wireless headphnes' }), ['headphones']);
    // At half a word's weight: the word spelt right still ranks a product first.
    const score = (query: string) => index.search({ query }).results[0]!.score;
    assert.equal(score('snekers'), score('sneakers') / 2);
    // A title's pair of corrected words is a guess too: the whole score halves, its bigram's share too.
    assert.ok(Math.abs(score('runing snekers') - score('running sneakers') / 2) < 1e-12);
    assert.equal(ids(index, { query: 'white snekers' })[0], 'sneakers-2');
  });

  test("a pair of a right and a corrected word counts at the corrected word's weight", () => {
    const score = (query: string) =>
      index.matchAll({ query }).find((m) => m.product.id === 'sneakers')!.score;
    // Every word matched: the coordination factor is 1, so the parts add. In reverse order no pair.
    const pair = score('running sneakers') - score('sneakers running');
    assert.ok(pair > 0);
    const halved = score('running sneakers') - (score('sneakers') + pair) / 2;
    assert.ok(Math.abs(score('running snekers') - halved) < 1e-9);
  });

  test('not a word the catalogue holds, a short one, one with digits, or twice for one word', () => {
    // "speaker" is held: not read as "sneaker". "nike" and "canon" (under six letters) are no bike or
    // canoe; "750ml" is not "250ml".
    assert.deepEqual(ids(index, { query: 'speaker' }), ['speaker']);
    assert.deepEqual(ids(index, { query: 'nike' }), []);
    assert.deepEqual(ids(index, { query: 'canoe' }), ['canoe']);
    assert.deepEqual(ids(index, { query: 'canon' }), []);
    assert.deepEqual(ids(index, { query: '750ml' }), []);
    assert.deepEqual(ids(index, { query: 'bottle 750ml' }), ['bottle']);
    // The correction of a word also in the query counts once.
    const [once] = index.search({ query: 'sneakers' }).results;
    const [twice] = index.search({ query: 'sneakers snekers' }).results;
    assert.equal(twice!.id, once!.id);
    assert.ok(twice!.score < once!.score, 'the unknown word counts as an unmatched term, not a second match');
  });

  test('of two words one edit away and as common, the first by the word, whatever the catalogue’s order', () => {
    // "cookler" is a letter extra from both "cooker" and "cooler", each in one product. The index
    // orders products by id, so swapping the ids swaps which word the catalogue holds first.
    for (const [cookerId, coolerId] of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const catalogue = buildIndex([
        product({ id: cookerId, title: 'Slow Cooker' }),
        product({ id: coolerId, title: 'Wine Cooler' }),
      ]);
      assert.deepEqual(ids(catalogue, { query: 'cookler' }), [cookerId], `cooker as ${cookerId}`);
    }
  });

  test('a misspelt stop-word is not read as the stop-word, though the catalogue holds it', () => {
    // The catalogue holds "without" (a query of stop-words only keeps them and finds it); "withot" is
    // a letter short of it, but a stop-word says nothing of what is sought.
    const catalogue = buildIndex([product({ id: 'laceless', title: 'Sneakers without laces' })]);
    assert.deepEqual(ids(catalogue, { query: 'without' }), ['laceless']);
    assert.deepEqual(ids(catalogue, { query: 'withot' }), []);
  });

  test('one edit apart is the optimal string alignment distance 1', () => {
    const distance = (a: string, b: string): number => {
      const d = Array.from({ length: a.length + 1 }, (_, i) =>
        Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
      );
      for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++) {
          const cost = a[i - 1] === b[j - 1] ? 0 : 1;
          d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
          if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
            d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
        }
      return d[a.length]![b.length]!;
    };
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 7 });
    fc.assert(
      fc.property(word, word, (a, b) => {
        assert.equal(oneEditApart(a, b), distance(a, b) === 1, `${a} ${b}`);
      }),
      { seed: 7, numRuns: 3_000 },
    );
    // The corrector looks only where a word one edit away may lie (by length and first or last
    // letter): it finds what comparing with every word finds.
    const long = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), minLength: 4, maxLength: 7 });
    fc.assert(
      fc.property(fc.uniqueArray(long, { maxLength: 40 }), long, (words, query) => {
        const terms = new Map(words.map((w, id) => [w, id]));
        const frequency = (id: number) => id % 3;
        const expected = words
          .map((w, id) => ({ w, id }))
          .filter(({ w }) => query.length >= MIN_CORRECTED_LENGTH && oneEditApart(query, w))
          .sort((x, y) => frequency(y.id) - frequency(x.id) || (x.w < y.w ? -1 : 1))[0]?.id;
        assert.equal(spellingCorrector(terms, frequency)(query), expected, `${query} in ${words}`);
      }),
      { seed: 7, numRuns: 1_000 },
    );
  });
});

describe('hyphenated words', () => {
  const index = buildIndex([
    product({ id: 'tshirt', title: 'Cotton T-Shirt' }),
    product({ id: 'dress-shirt', title: 'Oxford Dress Shirt' }),
    product({ id: 'router', title: 'Wi-Fi 6 Router' }),
    product({ id: 'router-table', title: 'Router Table' }),
  ]);

  test('are found written joined up, apart or hyphenated', () => {
    assert.deepEqual(tokenize('T-Shirt'), ['t', 'shirt', 'tshirt']);
    assert.deepEqual(ids(index, { query: 'tshirt' }), ['tshirt']);
    assert.equal(ids(index, { query: 't-shirt' })[0], 'tshirt');
    assert.equal(ids(index, { query: 'wifi router' })[0], 'router');
    assert.equal(ids(index, { query: 'wi-fi router' })[0], 'router');
  });

  test('so are words joined by an apostrophe: "levis" finds Levi\'s and Levi’s, "levi" too', () => {
    const brands = buildIndex([
      product({ id: 'ascii', title: "Levi's 501 Original Jeans" }),
      product({ id: 'typographic', title: 'Levi’s Trucker Jacket' }),
      product({ id: 'kiehls', title: 'Kiehl’s Ultra Facial Cream' }),
      product({ id: 'other', title: 'Slim Jeans' }),
    ]);
    assert.deepEqual(tokenize("Levi's"), ['levi', 's', 'levis']);
    assert.deepEqual(tokenize('Levi’s'), tokenize("Levi's"));
    for (const query of ['levis', "levi's", 'levi’s', 'levi'])
      assert.deepEqual(ids(brands, { query }).sort(), ['ascii', 'typographic'], query);
    assert.deepEqual(ids(brands, { query: 'kiehls cream' }), ['kiehls']);
    assert.equal(ids(brands, { query: 'levis jeans' })[0], 'ascii');
  });

  test('an accented letter anywhere does not change how the rest of a text is cut', () => {
    // The all-ASCII scan and the Unicode one must agree, or a title with one "é" in it would no
    // longer match the query words it shares with the rest.
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', '1', 'g', '-', ' ', '\u00a0', '.', 'é'), maxLength: 24 }),
        (text) => {
          const expected = tokenize(`é ${text}`).slice(1);
          assert.deepEqual(tokenize(text), expected);
        },
      ),
      { seed: 7, numRuns: 400 },
    );
  });

  test('full-width characters anywhere cut a text exactly as their ASCII forms do', () => {
    // Full-width forms fold to ASCII on the Unicode path, so the two paths meet at every position.
    const wide = (ch: string) =>
      ch === ' ' ? '\u3000' : ch > ' ' && ch <= '~' ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0) : ch;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'B', '1', '-', ' ', '.', "'", 'é'), fc.boolean()), {
          maxLength: 24,
        }),
        (chars) => {
          const ascii = chars.map(([ch]) => ch).join('');
          const mixed = chars.map(([ch, isWide]) => (isWide ? wide(ch) : ch)).join('');
          assert.deepEqual(tokenize(mixed), tokenize(ascii));
        },
      ),
      { seed: 7, numRuns: 400 },
    );
  });
});

describe('plurals the suffix rules miss', () => {
  const index = buildIndex([
    product({ id: 'hoodie', title: 'Zip Hoodie' }),
    product({ id: 'cookies', title: 'Chocolate Chip Cookies' }),
    product({ id: 'knife', title: 'Chef Knife' }),
    product({ id: 'shelf', title: 'Floating Wall Shelf' }),
    product({ id: 'mouse', title: 'Wireless Mouse' }),
    product({ id: 'lens', title: 'Camera Lens 50mm' }),
    product({ id: 'skis', title: 'Alpine Skis 170 cm' }),
    product({ id: 'tomatoes', title: 'Cherry Tomatoes 500 g' }),
    product({ id: 'bikini', title: 'Triangle Bikini Top' }),
    product({ id: 'axes', title: 'Splitting Axes, set of 2' }),
    product({ id: 'tennis', title: 'Tennis Racket' }),
  ]);

  test('singular and plural find each other: hoodies, cookie, knives, shelves, mice, lenses', () => {
    for (const [query, id] of [
      ['hoodies', 'hoodie'],
      ['cookie', 'cookies'],
      ['knives', 'knife'],
      ['shelves', 'shelf'],
      ['mice', 'mouse'],
      ['lenses', 'lens'],
    ] as const) {
      assert.deepEqual(ids(index, { query }), [id], query);
    }
  });

  test('-oes, -is and -axes plurals too: ski, tomato, bikinis, axe; tennis stays tennis', () => {
    for (const [query, id] of [
      ['ski', 'skis'],
      ['tomato', 'tomatoes'],
      ['bikinis', 'bikini'],
      ['axe', 'axes'],
      ['tennis', 'tennis'],
    ] as const) {
      assert.deepEqual(ids(index, { query }), [id], query);
    }
  });
});

describe('words that are stop-words elsewhere but things in a shop', () => {
  // The shorter title of each pair would win on the shared word alone (length normalisation).
  const index = buildIndex([
    product({ id: 'trash-bags', title: 'Trash Bags' }),
    product({ id: 'trash-can', title: 'Stainless Steel Trash Can' }),
    product({ id: 'bottle-opener', title: 'Bottle Opener' }),
    product({ id: 'can-opener', title: 'Manual Can Opener' }),
    product({ id: 'rain-jacket', title: 'Rain Jacket' }),
    product({ id: 'down-jacket', title: 'Goose Down Puffer Jacket' }),
  ]);

  test('"can" and "down" count: trash can, can opener and down jacket come first', () => {
    assert.equal(ids(index, { query: 'trash can' })[0], 'trash-can');
    assert.equal(ids(index, { query: 'can opener' })[0], 'can-opener');
    assert.equal(ids(index, { query: 'down jacket' })[0], 'down-jacket');
    assert.deepEqual(queryTerms('where can I find a down jacket'), ['can', 'down', 'jacket']);
  });
});

describe('filters and total_count', () => {
  const catalog = [
    product({ id: 'a', title: 'red chair', price_cents: 1000, merchant_type: 'affiliate' }),
    product({ id: 'b', title: 'red chair', price_cents: 2000, merchant_type: 'ucp' }),
    product({ id: 'c', title: 'red chair', price_cents: 3000, merchant_type: 'acp' }),
    product({ id: 'd', title: 'red sofa', price_cents: 2000, merchant_type: 'ucp' }),
    product({ id: 'e', title: 'blue lamp', price_cents: 2000, merchant_type: 'ucp' }),
  ];
  const index = buildIndex(catalog);

  test('price bounds are inclusive', () => {
    assert.deepEqual(ids(index, { query: 'chair', price_min_cents: 1000, price_max_cents: 2000 }), [
      'a',
      'b',
    ]);
    assert.deepEqual(ids(index, { query: 'chair', price_min_cents: 3000 }), ['c']);
    assert.deepEqual(ids(index, { query: 'chair', price_max_cents: 999 }), []);
  });

  test('merchant_type is exact; null means any', () => {
    assert.deepEqual(ids(index, { query: 'red', merchant_type: 'ucp' }).sort(), ['b', 'd']);
    assert.equal(index.search({ query: 'red', merchant_type: null }).total_count, 4);
  });

  test('total_count counts every match after filters, not only the page', () => {
    const r = index.search({ query: 'red chair', max_results: 1 });
    assert.equal(r.results.length, 1);
    assert.equal(r.total_count, 4, 'any query term hitting is a match');
    assert.equal(index.search({ query: 'red chair', max_results: 1, price_min_cents: 2000 }).total_count, 3);
    assert.equal(index.search({ query: 'red', max_results: 0 }).total_count, 4);
  });

  test('ties break by id, so equal products always come back in the same order', () => {
    assert.deepEqual(ids(index, { query: 'chair' }), ['a', 'b', 'c']);
  });

  test('a query is its first 32 terms: the 32nd still matches, the 33rd not', () => {
    // Words with a digit are never read as a typo of another word.
    const filler = (count: number) => Array.from({ length: count }, (_, i) => `x${i}`).join(' ');
    assert.deepEqual(ids(index, { query: `${filler(31)} sofa` }), ['d']);
    assert.deepEqual(ids(index, { query: `${filler(32)} sofa` }), []);
  });

  test('a page is 10 results unless max_results says otherwise', () => {
    const many = buildIndex(
      Array.from({ length: 12 }, (_, i) => product({ id: `chair-${i}`, title: 'chair' })),
    );
    const page = many.search({ query: 'chair' });
    assert.equal(page.results.length, 10);
    assert.equal(page.total_count, 12);
  });

  test('one id at two merchants: ties break by the merchant domain, whatever the catalogue order', () => {
    const at = (domain: string) =>
      product({ id: 'same', title: 'red chair', merchant_domain: domain, merchant: domain });
    for (const catalog of [
      [at('b.example'), at('a.example')],
      [at('a.example'), at('b.example')],
    ]) {
      const domains = buildIndex(catalog)
        .search({ query: 'chair' })
        .results.map((r) => r.merchant_domain);
      assert.deepEqual(domains, ['a.example', 'b.example']);
    }
  });
});

describe('variant groups (item_group_id)', () => {
  // Three sizes of one shirt, each its own product in the feed, and another shirt.
  const catalog = [
    product({ id: 'oxford-s', title: 'Oxford shirt, size S', price_cents: 3900, item_group_id: 'oxford' }),
    product({ id: 'oxford-m', title: 'Oxford shirt, size M', price_cents: 4200, item_group_id: 'oxford' }),
    product({
      id: 'oxford-l',
      title: 'Oxford shirt blue, size L',
      price_cents: 4500,
      merchant_type: 'ucp',
      item_group_id: 'oxford',
    }),
    product({ id: 'linen', title: 'Linen shirt', price_cents: 5000 }),
  ];
  const index = buildIndex(catalog);

  test('a search answers one result per group, and total_count counts groups', () => {
    const r = index.search({ query: 'shirt' });
    assert.equal(r.results.length, 2);
    assert.equal(r.total_count, 2);
    assert.deepEqual(
      r.results.map((p) => p.item_group_id ?? p.id),
      ['linen', 'oxford'],
      'the shorter title ranks first; the group stands once',
    );
  });

  test('the best-scoring variant stands for its group; equal scores go to the lower id', () => {
    assert.deepEqual(ids(index, { query: 'blue shirt' }), ['oxford-l', 'linen']);
    assert.equal(index.search({ query: 'blue shirt' }).total_count, 2);
    // S and M score the same for "oxford": the lower id is the representative, as ties break today.
    assert.deepEqual(ids(index, { query: 'oxford', merchant_type: 'affiliate' }), ['oxford-m']);
  });

  test('filters apply per variant: the variant that passes them stands for the group', () => {
    assert.deepEqual(ids(index, { query: 'shirt', price_min_cents: 4100, price_max_cents: 4300 }), [
      'oxford-m',
    ]);
    assert.deepEqual(ids(index, { query: 'oxford', merchant_type: 'ucp' }), ['oxford-l']);
    const none = index.search({ query: 'oxford', price_max_cents: 3000 });
    assert.deepEqual([none.results.length, none.total_count], [0, 0]);
    const cheap = index.search({ query: 'shirt', price_max_cents: 4500 });
    assert.deepEqual(
      [cheap.results.map((p) => p.id), cheap.total_count],
      [['oxford-m'], 1],
      'the best of the variants in range, not the cheapest',
    );
  });

  test('max_results counts groups: a group never fills the page', () => {
    const sizes = ['xs', 's', 'm', 'l', 'xl', 'xxl'];
    const index = buildIndex([
      ...sizes.map((size) =>
        product({ id: `tee-${size}`, title: `cotton tee ${size}`, item_group_id: 'tee' }),
      ),
      product({ id: 'tee-other', title: 'cotton tee, striped and cotton' }),
    ]);
    const r = index.search({ query: 'cotton tee', max_results: 2 });
    assert.deepEqual([r.results.length, r.total_count], [2, 2]);
    assert.ok(r.results.some((p) => p.id === 'tee-other'));
  });

  test('products without a group are unaffected; groups are per merchant', () => {
    const plain = [
      product({ id: 'a', title: 'red chair' }),
      product({ id: 'b', title: 'red chair' }),
      product({ id: 'c', title: 'red chair' }),
    ];
    assert.deepEqual(ids(buildIndex(plain), { query: 'chair' }), ['a', 'b', 'c']);
    const other = { merchant: 'other.com', merchant_domain: 'other.com' };
    const twoMerchants = buildIndex([
      product({ id: 'x1', title: 'wool scarf', item_group_id: 'scarf' }),
      product({ id: 'x2', title: 'wool scarf', item_group_id: 'scarf' }),
      product({ id: 'y1', title: 'wool scarf', item_group_id: 'scarf', ...other }),
    ]);
    const r = twoMerchants.search({ query: 'scarf' });
    assert.deepEqual([r.results.map((p) => p.id), r.total_count], [['x1', 'y1'], 2]);
  });
});

describe('top-k', () => {
  const bruteForce = (entries: { score: number; doc: number }[], k: number) =>
    [...entries].sort((a, b) => b.score - a.score || a.doc - b.doc).slice(0, k);

  test('the bounded heap keeps exactly what a full sort keeps (ties included)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }),
        fc.integer({ min: 0, max: 25 }),
        (scores, k) => {
          const heap = new TopK(k);
          scores.forEach((s, doc) => {
            heap.offer(s / 4, doc);
          });
          const expected = bruteForce(
            scores.map((s, doc) => ({ score: s / 4, doc })),
            k,
          );
          assert.deepEqual(heap.drain(), expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  const words = ['red', 'blue', 'oak', 'chair', 'table', 'lamp', 'rug', 'wool', 'the', 'sofa', 'mugs', 'mug'];
  const arbProduct = fc.record({
    title: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')),
    description: fc.array(fc.constantFrom(...words), { maxLength: 8 }).map((w) => w.join(' ')),
    brand: fc.constantFrom('', 'Oak', 'Acme'),
    price_cents: fc.integer({ min: 0, max: 50 }),
    merchant_type: fc.constantFrom<MerchantType>('affiliate', 'ucp', 'acp'),
  });
  // Some of them variants: a group id at one of two merchants, or none.
  const arbVariant = fc.record({
    product: arbProduct,
    group: fc.option(fc.constantFrom('g1', 'g2', 'g3'), { nil: undefined }),
    merchant: fc.constantFrom('shop.com', 'other.com'),
  });

  test('search returns the head of the sorted best-variant-per-group list, total_count the groups', () => {
    fc.assert(
      fc.property(
        fc.array(arbVariant, { minLength: 1, maxLength: 60 }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 20 }),
        fc.option(fc.constantFrom<MerchantType>('affiliate', 'ucp', 'acp')),
        fc.option(fc.integer({ min: 0, max: 50 })),
        fc.option(fc.integer({ min: 0, max: 50 })),
        (raw, queryWords, k, merchantType, min, max) => {
          const products = raw.map(({ product: p, group, merchant }, i) =>
            product({
              ...p,
              id: `id${String(i).padStart(3, '0')}`,
              merchant,
              ...(group === undefined ? {} : { item_group_id: group }),
            }),
          );
          const index = buildIndex(products);
          const q: SearchQuery = {
            query: queryWords.join(' '),
            max_results: k,
            merchant_type: merchantType,
            price_min_cents: min,
            price_max_cents: max,
          };
          const all = index.matchAll(q);
          // Independent filter check: every match obeys the filters.
          for (const m of all) {
            if (merchantType) assert.equal(m.product.merchant_type, merchantType);
            if (min !== null) assert.ok(m.product.price_cents >= min);
            if (max !== null) assert.ok(m.product.price_cents <= max);
          }
          // Brute force: sort every match, keep each group's first (its best variant), then the page.
          const groupOf = (p: CatalogProduct) =>
            p.item_group_id === undefined ? `id:${p.id}` : `${p.merchant} ${p.item_group_id}`;
          const seen = new Set<string>();
          const best = [...all]
            .sort((a, b) => b.score - a.score || (a.product.id < b.product.id ? -1 : 1))
            .filter((m) => !seen.has(groupOf(m.product)) && seen.add(groupOf(m.product)));
          const expected = best.slice(0, k).map((m) => m.product.id);
          const got = index.search(q);
          assert.deepEqual(
            got.results.map((r) => r.id),
            expected,
          );
          assert.equal(got.total_count, best.length);
        },
      ),
      { numRuns: 150 },
    );
  });

  test('a match is any product containing at least one query term', () => {
    fc.assert(
      fc.property(
        fc.array(arbProduct, { minLength: 1, maxLength: 40 }),
        fc.constantFrom(...words),
        (raw, word) => {
          const products = raw.map((p, i) => product({ ...p, id: `id${i}` }));
          const index = buildIndex(products);
          const term = tokenize(word)[0]!;
          const expected = products.filter((p) =>
            [p.title, p.brand, p.description].some((text) => tokenize(text).includes(term)),
          ).length;
          assert.equal(index.search({ query: word }).total_count, expected);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('generated catalogue', () => {
  test('is deterministic for a seed and searchable', () => {
    const a = generateCatalog(500, 9).products;
    const b = generateCatalog(500, 9).products;
    assert.deepEqual(a, b);
    const index = buildIndex(a);
    const r = index.search({ query: 'coffee table', max_results: 5 });
    assert.ok(r.total_count > 0);
    assert.match(r.results[0]!.title.toLowerCase(), /coffee table/);
  });

  test('with variantShare, puts models in groups of 2–5 and still yields exactly count products', () => {
    const plain = generateCatalog(500, 9).products;
    const { products } = generateCatalog(500, 9, { variantShare: 0.3 });
    assert.equal(products.length, 500);
    assert.ok(plain.every((p) => p.item_group_id === undefined));
    const sizes = new Map<string, number>();
    for (const p of products)
      if (p.item_group_id) sizes.set(p.item_group_id, (sizes.get(p.item_group_id) ?? 0) + 1);
    assert.ok(sizes.size > 50, `${sizes.size} groups`);
    assert.ok([...sizes.values()].every((n) => n <= 5));
    assert.ok(
      [...sizes.values()].filter((n) => n < 2).length <= 1,
      'only the last may be cut short by count',
    );
    const r = buildIndex(products).search({ query: 'shirt dress jeans hoodie', max_results: 20 });
    const groups = r.results.map((p) => p.item_group_id ?? p.id);
    assert.equal(new Set(groups).size, groups.length, 'one result per group');
  });
});
