import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import { findPalette, MAX_SWATCH_SHAPES, printedColors } from '../../shared/brand-kits/extract/colors.ts';
import { findFonts, MAX_FONTS, wordmarkFont } from '../../shared/brand-kits/extract/fonts.ts';
import type { PaintedShape } from '../../shared/brand-kits/extract/types.ts';
import { textLine as line, documentModel as model } from './fixtures.ts';

// Bounds on the font and colour rules: work a document decides grows with it, not with its square.
// No timings: the tests count what the fix changes (pattern tests, characters read, comparisons).

const deadline = { at: Date.now() + 600_000, ms: 600_000 };

/** Runs `work` counting RegExp#test calls and the characters they were given. */
function patternTests<T>(t: TestContext, work: () => T): { result: T; calls: number; chars: number } {
  const counted = t.mock.method(RegExp.prototype, 'test');
  try {
    const result = work();
    const calls = counted.mock.calls;
    return {
      result,
      calls: calls.length,
      chars: calls.reduce((n, c) => n + String(c.arguments[0]).length, 0),
    };
  } finally {
    counted.mock.restore();
  }
}

describe('font bounds', () => {
  test('one long line naming an ambiguous font many times is read once, not once a mention', (t) => {
    // Before, each "Georgia" copied the line without it and looked for font words there: n² characters.
    const run = (n: number) =>
      patternTests(t, () => findFonts(model({ lines: [line('Georgia '.repeat(n), 0)] }), deadline));
    const [small, large] = [run(1_000), run(2_000)];
    assert.deepEqual(large.result.all, []);
    assert.ok(large.chars < 2.5 * small.chars, `${small.chars} then ${large.chars} characters tested`);
  });

  test('a giant font size does not make every line of the page a neighbour', (t) => {
    // A line far below a typography heading names "Georgia" in prose: only its claimed size (a DOCX's
    // w:sz) put the heading within reach, so the name was taken as a typeface.
    const giant = { size: 1_000_000 };
    const lines = [
      line('Typography', 0, { level: 1 }),
      line('We opened our first shop in Georgia on a rainy day', 500, giant),
    ];
    assert.deepEqual(findFonts(model({ lines }), deadline).all, []);
    // Same lines at the giant size, naming a font each: twice the lines is twice the work, not 4×.
    const run = (n: number) =>
      patternTests(t, () =>
        findFonts(
          model({ lines: Array.from({ length: n }, (_, i) => line('Headings in Montserrat', i, giant)) }),
          deadline,
        ),
      );
    const [small, large] = [run(300), run(600)];
    assert.deepEqual(large.result.all, ['Montserrat']);
    assert.ok(large.calls < 2.5 * small.calls, `${small.calls} then ${large.calls} pattern tests`);
  });

  test(`credits at most ${MAX_FONTS} typefaces, the named ones first`, () => {
    // A DOCX can set each run in another family: all of them were returned and searched for.
    const fontUse = new Map(Array.from({ length: 500 }, (_, i) => [`Family${i} Sans`, 1_000 - i]));
    const lines = [line('Body copy is set in Lato.', 0), line('Headings use Poppins.', 1)];
    const fonts = findFonts(model({ lines, fontUse }), deadline);
    assert.equal(MAX_FONTS, 24);
    assert.equal(fonts.all.length, MAX_FONTS);
    assert.deepEqual(fonts.all.slice(0, 4), ['Poppins', 'Lato', 'Family0 Sans', 'Family1 Sans']);
    assert.deepEqual([fonts.headings, fonts.body], ['Poppins', 'Lato']);
  });

  test('takes no family name past 100 characters (a 60,000-character one threw: a pattern too large)', () => {
    const huge = `F${'a'.repeat(60_000)}`;
    const [longest, tooLong] = [`G${'a'.repeat(99)}`, `H${'a'.repeat(100)}`];
    const fontUse = new Map([
      [huge, 5_000],
      [tooLong, 4_000],
      ['Lato', 10],
      [longest, 5],
    ]);
    const lines = [line('The wordmark is set in Lato.', 0)];
    const fonts = findFonts(model({ lines, fontUse }), deadline);
    assert.deepEqual([fonts.body, fonts.all], ['Lato', ['Lato', longest]]);
    assert.equal(wordmarkFont(fonts.all, lines[0]!.text), 'Lato');
  });

  test('wordmarkFont reads only the text around "wordmark", not the whole text per family', (t) => {
    const families = Array.from({ length: 20 }, (_, i) => `Family${i}`);
    const text = (n: number) =>
      `${'Our brand is bold and friendly. '.repeat(n)}The wordmark is set in Family7 Bold. ${'More text here. '.repeat(n)}`;
    const run = (n: number) => patternTests(t, () => wordmarkFont(families, text(n)));
    const [small, large] = [run(500), run(1_000)];
    assert.equal(large.result, 'Family7');
    // Before: every family's pattern read the whole text (grows with it); now a fixed stretch.
    assert.ok(large.chars < 1.2 * small.chars, `${small.chars} then ${large.chars} characters tested`);
    assert.equal(wordmarkFont(families, 'Family7 text, no mark'), null);
    // Word edges count as in the whole text: "xFamily7" is not the family.
    assert.equal(wordmarkFont(['Family7'], `${'a'.repeat(200)}xFamily7 wordmark`), null);
    assert.equal(wordmarkFont(['Family7'], `${'a '.repeat(200)}Family7 wordmark`), 'Family7');
  });
});

describe('colour bounds', () => {
  test('swatch sizes are compared with shapes of nearby size, not every shape with every other', (t) => {
    // n shapes of n colours, each 10% wider than the last (no two the same size), and one swatch pair:
    // before, each shape was compared with every other looking for a same-sized one (n²).
    const run = (n: number) => {
      const shapes: PaintedShape[] = [
        ...Array.from({ length: n }, (_, i) => ({
          hex: `#FF${i.toString(16).padStart(4, '0').toUpperCase()}`,
          page: 1,
          width: 40 * 1.1 ** i,
          height: 40,
        })),
        ...Array.from({ length: n }, () => ({ hex: '#00AA00', page: 1, width: 60, height: 300 })),
        { hex: '#0000FF', page: 1, width: 61, height: 300 },
      ];
      const abs = t.mock.method(Math, 'abs');
      try {
        const found = findPalette(model({ shapes, swatchPages: new Set([1]) }));
        return { palette: found.palette, calls: abs.mock.callCount() };
      } finally {
        abs.mock.restore();
      }
    };
    const [small, large] = [run(400), run(800)];
    assert.deepEqual(large.palette, ['#00AA00', '#0000FF']);
    assert.ok(large.calls < 2.5 * small.calls, `${small.calls} then ${large.calls} comparisons`);
  });

  test(`reads at most ${MAX_SWATCH_SHAPES} shapes on the colour pages`, () => {
    const filler = Array.from({ length: MAX_SWATCH_SHAPES }, () => ({
      hex: '#888888',
      page: 1,
      width: 300,
      height: 20,
    }));
    const pair = [
      { hex: '#FF0000', page: 1, width: 40, height: 40 },
      { hex: '#0000FF', page: 1, width: 40, height: 40 },
    ];
    const palette = (shapes: PaintedShape[]) =>
      findPalette(model({ shapes, swatchPages: new Set([1]) })).palette;
    assert.deepEqual(palette([...pair, ...filler]), ['#FF0000', '#0000FF']);
    assert.deepEqual(palette([...filler, ...pair]), []);
  });

  test('a line holding many values is read once for misuse and role words, not once a value', (t) => {
    // n values on one line, each after filler: before, each value re-read the whole line twice.
    const run = (n: number) => {
      const text = Array.from(
        { length: n },
        (_, i) => `#${(0xff0000 + i).toString(16).toUpperCase()} ${'brand tint '.repeat(20)}`,
      ).join('');
      const lines = [line('Primary colours', 0), line(text, 1)];
      return patternTests(t, () => findPalette(model({ lines, printedColors: printedColors(lines) })));
    };
    const [small, large] = [run(200), run(400)];
    assert.equal(large.result.palette.length, 400);
    assert.equal(large.result.primary, '#FF0000');
    assert.ok(large.chars < 2.5 * small.chars, `${small.chars} then ${large.chars} characters tested`);
  });
});
