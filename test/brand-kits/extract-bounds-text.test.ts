// Inputs an audit found to take the square of their size (or crash) in the brand-kit extractor's
// layout, DOCX reader and word rules; each is held here to work that grows with the input.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import { readDocx } from '../../shared/brand-kits/extract/docx.ts';
import { extractBrandKit } from '../../shared/brand-kits/extract/index.ts';
import {
  assignHeadingLevels,
  type Section,
  sections,
  withoutRunningLines,
} from '../../shared/brand-kits/extract/layout.ts';
import { DocumentError, type TextLine } from '../../shared/brand-kits/extract/types.ts';
import { documentText, findLinks, findWords } from '../../shared/brand-kits/extract/words.ts';
import { documentModel, docxParts, textLine as line, paragraph, strToU8, zipSync } from './fixtures.ts';

const NO_DEADLINE = { at: Number.MAX_SAFE_INTEGER, ms: 1e9 };

/** CPU milliseconds of the fastest of two calls, after one to warm up. */
function cpuMs(work: () => unknown): number {
  work();
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 2; i++) {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

/** CPU milliseconds of one call. */
function cpuOnce(work: () => unknown): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** A DOCX whose body is `body`, with the fixtures' styles and no images. */
const docx = (body: string, edit?: (parts: Record<string, Uint8Array>) => void) => {
  const parts = docxParts({ body, withLogo: false, theme: false });
  edit?.(parts);
  return zipSync(parts);
};
const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
/** The words' inputs for a document of these lines, as buildDraft makes them. */
function wordsOf(lines: TextLine[], title: string | null = null) {
  const doc = documentModel({ title, lines });
  const text = documentText(lines);
  return findWords(doc, lines, text, null, []);
}

describe('sections and heading levels', () => {
  test('headings are lines of at most 12 words set 8% or more above body size', () => {
    const body = 'Body text runs on in sentences that are long enough to set the body size of the page.';
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    const lines = [
      line(body, 0, { size: 10, y: 0 }),
      line('Colour palette', 1, { size: 10.8, y: -100 }),
      line('Just under', 2, { size: 10.7, y: -200 }),
      line(words(12), 3, { size: 20, y: -300 }),
      line(words(13), 4, { size: 20, y: -400 }),
      line(body, 5, { size: 10, y: -500 }),
    ];
    assignHeadingLevels(lines);
    assert.deepEqual(
      lines.map((l) => l.level),
      [0, 2, 0, 1, 0, 0],
    );
  });

  test('running lines are those on 30% of the pages or more (3 at least), and page numbers', () => {
    const pages = 20;
    const lines = Array.from({ length: pages }, (_, i) => [
      line(`Chapter ${String.fromCharCode(65 + i)} has its own words`, 0, { page: i + 1 }),
      ...(i < 6 ? [line('Acme confidential', 1, { page: i + 1 })] : []),
      ...(i < 5 ? [line('Acme colours', 1, { page: i + 1 })] : []),
      // Numbered on two pages only: too few to be running lines, still page numbers.
      ...(i < 2 ? [line(`${i + 1}`, 2, { page: i + 1 })] : []),
    ]).flat();
    const kept = new Set(withoutRunningLines(lines, pages).map((l) => l.text));
    assert.ok(!kept.has('Acme confidential'));
    assert.ok(kept.has('Acme colours'));
    assert.ok(![...kept].some((text) => /^\d+$/.test(text)));
    assert.equal(kept.size, pages + 1);
    // A document of two pages has no running lines, but its page numbers go.
    const short = [line('Acme confidential', 0, { page: 1 }), line('2', 1, { page: 2 })];
    assert.deepEqual(
      withoutRunningLines(short, 2).map((l) => l.text),
      ['Acme confidential'],
    );
  });

  /** The rule as it was written: each heading's body copied out up to the next of its rank or higher. */
  function reference(lines: TextLine[]) {
    const out: [string, string[]][] = [];
    lines.forEach((heading, i) => {
      if (heading.level === 0) return;
      const body: string[] = [];
      for (const next of lines.slice(i + 1)) {
        if (next.level !== 0 && next.level <= heading.level) break;
        body.push(next.text);
      }
      out.push([heading.text, body]);
    });
    return out;
  }
  const shape = (found: Section[]) =>
    found.map((s): [string, string[]] => [s.heading.text, s.body.map((l) => l.text)]);

  test('a heading’s body runs to the next heading of its rank or higher, however headings nest', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let doc = 0; doc < 50; doc++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 60) }, (_, i) =>
        line(`line ${i}`, i, { level: random() < 0.5 ? 0 : 1 + Math.floor(random() * 5) }),
      );
      assert.deepEqual(shape(sections(lines)), reference(lines));
    }
    // Read twice, a body is the same lines.
    const [first] = sections([line('Mission', 0, { level: 1 }), line('We launch.', 1)]);
    assert.equal(first!.body, first!.body);
  });

  test('finding the sections reads each line a bounded number of times, however the headings nest', () => {
    // N headings set in N sizes, largest first: each body runs to the end of the document. Copying
    // every body took the square of the headings in time and memory: a 90 KB DOCX took 4 s and 1.4 GB,
    // one of 178 KB crashed the process (audit). Twice the headings is now twice the reads.
    const reads = (n: number) => {
      let count = 0;
      const lines = Array.from({ length: n }, (_, i) => {
        const plain = line(`Part ${i}`, i);
        return Object.defineProperty(plain, 'level', {
          get: () => {
            count++;
            return i + 1;
          },
        });
      });
      const found = sections(lines);
      assert.equal(found.length, n);
      const afterFinding = count;
      assert.equal(found[0]!.body.length, n - 1);
      assert.equal(found.at(-1)!.body.length, 0);
      return afterFinding;
    };
    const [small, large] = [reads(2_000), reads(4_000)];
    assert.ok(large <= 2.5 * small, `${small} then ${large} reads of a line's level`);
  });

  test('a line’s heading level is looked up by its size, not searched for among all sizes', () => {
    // 128,000 short lines, each in a size of its own, took 5.9 s (audit): the size's rank was searched
    // for in the list of sizes once a line. Now as fast as as many lines in one size.
    const lines = (n: number, size: (i: number) => number) => [
      line('x '.repeat(5 * n), 0, { size: 1 }),
      // Far apart: not a paragraph set large.
      ...Array.from({ length: n }, (_, i) => line(`Part ${i}`, i + 1, { size: size(i), y: -i * 100 })),
    ];
    const n = 60_000;
    const oneSize = cpuMs(() => assignHeadingLevels(lines(n, () => 20)));
    const sizes = cpuMs(() => assignHeadingLevels(lines(n, (i) => 2 + i)));
    assert.ok(sizes < 5 * oneSize + 20, `${oneSize} ms for one size, ${sizes} ms for ${n} sizes`);
    // Largest size first, as before.
    const few = lines(3, (i) => 20 + i);
    assignHeadingLevels(few);
    assert.deepEqual(
      few.map((l) => l.level),
      [0, 3, 2, 1],
    );
  });
});

describe('DOCX paragraphs and drawings', () => {
  test('a paragraph’s text is its own: a paragraph nested in it is a line of its own, read once', () => {
    // Each paragraph's text was repeated in every paragraph around it: up to 100 times the memory
    // (528 KB of DOCX: 17.5 s and 2.2 GB, audit).
    const depth = 40;
    const words = (i: number) => `words of paragraph ${i} `.padEnd(60, 'x');
    const nested =
      Array.from({ length: depth }, (_, i) => `<w:p>${run(words(i))}`).join('') + '</w:p>'.repeat(depth);
    const { lines } = readDocx(docx(nested), NO_DEADLINE);
    assert.deepEqual(
      lines.map((l) => l.text),
      Array.from({ length: depth }, (_, i) => words(i).trim()),
    );
  });

  test('a text box’s text is read once, as its own lines, and its style stays its own', () => {
    const mc = [
      'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"',
      'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"',
      'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"',
      'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"',
      'xmlns:v="urn:schemas-microsoft-com:vml"',
    ].join(' ');
    const box = paragraph('Reusable by design.', 'Heading1') + paragraph('Flown twelve times.');
    // As Word writes a text box: a drawing for readers that know shapes, VML for those that do not.
    const wordBox = `<w:r><mc:AlternateContent ${mc}><mc:Choice Requires="wps"><w:drawing><wp:anchor><wp:docPr id="3" name="Text Box 3"/><a:graphic><a:graphicData><wps:wsp><wps:txbx><w:txbxContent>${box}</w:txbxContent></wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent>${box}</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>`;
    const vmlBox = `<w:r><w:pict><v:shape ${mc}><v:textbox><w:txbxContent>${paragraph('Only in VML.')}</w:txbxContent></v:textbox></v:shape></w:pict></w:r>`;
    const body = [
      paragraph('Acme Rockets', 'Title'),
      `<w:p>${run('Before the box ')}${wordBox}${run('and after it.')}</w:p>`,
      `<w:p>${run('Plain ')}${vmlBox}${run('tail.')}</w:p>`,
    ].join('');
    const { lines } = readDocx(docx(body), NO_DEADLINE);
    assert.deepEqual(
      lines.map((l) => [l.text, l.level]),
      [
        ['Acme Rockets', 1],
        // Before, the box's paragraphs came in this line twice over, and it took their heading style.
        ['Before the box and after it.', 0],
        ['Reusable by design.', 2],
        ['Flown twelve times.', 0],
        ['Plain tail.', 0],
        ['Only in VML.', 0],
      ],
    );
  });

  test('drawings with a picture each take as long as drawings of one picture', () => {
    // The pictures in drawing order were a list searched once a drawing: 64,000 drawings in 527 KB
    // took 65 s, before the first paragraph read the clock (audit).
    const n = 16_000;
    const drawings = (targets: number) => {
      const drawn = Array.from(
        { length: n },
        (_, i) => `<w:drawing><a:blip xmlns:a="a" r:embed="rId${i % targets}"/></w:drawing>`,
      );
      const rels = Array.from(
        { length: targets },
        (_, i) => `<Relationship Id="rId${i}" Type="image" Target="media/image${i}.png"/>`,
      );
      return docx(paragraph('Hello brand') + drawn.join(''), (parts) => {
        parts['word/_rels/document.xml.rels'] = strToU8(
          `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`,
        );
      });
    };
    const [one, many] = [drawings(1), drawings(n)];
    const onePicture = cpuMs(() => readDocx(one, NO_DEADLINE));
    const pictures = cpuMs(() => readDocx(many, NO_DEADLINE));
    assert.ok(pictures < 5 * onePicture, `${onePicture} ms for one picture, ${pictures} ms for ${n}`);
  });
});

/** A zip of stored entries as listed, a name as often as it is given (fflate's zipSync takes an
 * object: one entry a name). */
function storedZip(entries: [name: string, data: Uint8Array][]): Uint8Array {
  const local: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const encoded = Buffer.from(name);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt32LE(crc32(data), 14);
    header.writeUInt32LE(data.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(encoded.length, 26);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    header.copy(record, 16, 14, 26); // CRC-32 and sizes
    record.writeUInt16LE(encoded.length, 28);
    record.writeUInt32LE(offset, 42);
    local.push(header, encoded, Buffer.from(data));
    directory.push(record, encoded);
    offset += header.length + encoded.length + data.length;
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(Buffer.concat(directory).length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...local, ...directory, end]));
}

describe('DOCX zip directory', () => {
  const parts = Object.entries(docxParts({ body: paragraph('Hello brand'), withLogo: false, theme: false }));
  /** The fixtures' DOCX with `extra` empty entries after its parts, each named as `name` says. */
  const withEntries = (extra: number, name: (i: number) => string) =>
    storedZip([
      ...parts,
      ...Array.from({ length: extra }, (_, i): [string, Uint8Array] => [name(i), new Uint8Array(0)]),
    ]);

  test('entries of one name take as long to check as entries of as many names', () => {
    // Each entry of a name copied the checksums of those before it: 50,000 empty entries named `a`
    // (3.9 MB, under the form's 4 MiB) took 27 s in the reader, past its 10 s deadline (audit).
    const n = 9_000;
    const [distinct, repeated] = [withEntries(n, (i) => `a${i}`), withEntries(n, () => 'a')];
    assert.equal(readDocx(repeated, NO_DEADLINE).lines[0]?.text, 'Hello brand');
    const names = cpuMs(() => readDocx(distinct, NO_DEADLINE));
    const one = cpuMs(() => readDocx(repeated, NO_DEADLINE));
    // 5×: before the fix 14× (115 ms against 8), after it under 1×; room for a busy machine.
    assert.ok(one < 5 * names, `${names} ms for ${n} names, ${one} ms for one name ${n} times`);
  });

  test('a DOCX of more than 10,000 entries is refused from its directory, as a zip bomb is', async () => {
    // Word writes tens to a few hundred; the audit's 50,000 were read to the deadline (a 422 at 10 s).
    const atLimit = withEntries(10_000 - parts.length, (i) => `a${i}`);
    assert.equal(readDocx(atLimit, NO_DEADLINE).lines[0]?.text, 'Hello brand');
    const tooMany = (error: unknown) => {
      assert.ok(error instanceof DocumentError && error.kind === 'too_large', String(error));
      assert.equal(
        error.message,
        'The DOCX file holds more than 10,000 entries (Word writes tens to a few hundred).',
      );
      return true;
    };
    const pastLimit = withEntries(10_001 - parts.length, () => 'a');
    assert.throws(() => readDocx(pastLimit, NO_DEADLINE), tooMany);
    await assert.rejects(extractBrandKit(withEntries(50_000, () => 'a')), tooMany);
  });
});

describe('words of any length', () => {
  // Each took the square of a run's length: a pattern anchored at the end (or with \s* around a
  // separator) was tried from every character of the run and read it to its end each time. The
  // lengths here took 4–10 s each before; linear, they take milliseconds.
  const BUDGET_MS = 1_000;

  test('quotes around a cover line are taken off however many there are inside it', () => {
    // 160,000 quotes between two letters: 25 s (audit).
    const quotes = "'".repeat(100_000);
    let tagline: string | null = 'unset';
    const ms = cpuOnce(() => {
      tagline = wordsOf([line(`a${quotes}a`, 0)]).tagline;
    });
    assert.equal(tagline, null);
    assert.ok(ms < BUDGET_MS, `${ms} ms`);
    assert.equal(wordsOf([line('“Fly further, land softer.”', 0)]).tagline, 'Fly further, land softer.');
  });

  test('a metadata title with a long run of blanks still names the brand', () => {
    // dc:title "a", 160,000 blanks, "b": 40 s (audit); a PDF's Info title the same.
    const title = `Zorblax${' '.repeat(60_000)}Industries — Brand Guidelines 2024`;
    let name: string | null = null;
    const ms = cpuOnce(() => {
      name = wordsOf([line('hello there', 0)], title).name;
    });
    assert.equal(name, 'Zorblax Industries');
    assert.ok(ms < BUDGET_MS, `${ms} ms`);
  });

  test('an address ending in a long run of dots is no site; a sentence’s full stop still comes off', () => {
    // https://acme.com/ then 320,000 dots and a letter: 81 s (audit), in the text or as a link.
    const long = `https://acme.com/${'.'.repeat(80_000)}x`;
    const links = (text: string, linked: string[] = []) =>
      findLinks(documentModel({ links: linked }), text, [], undefined).website;
    let found: (string | null)[] = [];
    const ms = cpuOnce(() => {
      found = [links(`see ${long}`), links('hello', [long])];
    });
    assert.deepEqual(found, [null, null]);
    assert.ok(ms < BUDGET_MS, `${ms} ms`);
    assert.equal(links('Visit https://acme.com/about...'), 'https://acme.com/about');
    assert.equal(links('Visit www.acme.com;'), 'https://www.acme.com');
    // Up to 2,048 characters an address is read.
    const path = 'p'.repeat(2_048 - 'https://acme.com/'.length);
    assert.equal(links(`at https://acme.com/${path}.`), `https://acme.com/${path}`);
    assert.equal(links(`at https://acme.com/${path}p.`), null);
  });

  test('a name candidate too long to be a name answers no name, not a server error', async () => {
    // A 60,000-letter word before "Brand Guidelines", or a 40,000-character word the text repeats,
    // became a search pattern too large for the regex engine: a SyntaxError, so a 500.
    const shouted = docx(paragraph(`${'A'.repeat(60_000)} Brand Guidelines`) + paragraph('hello there'));
    const word = `Ab${'1a'.repeat(20_000)}`;
    const repeated = docx(
      paragraph(`we saw ${word} here. then ${word} and ${word} or ${word}.`) +
        paragraph(`${word.toLowerCase()}b`),
    );
    for (const bytes of [shouted, repeated]) {
      const { draft } = await extractBrandKit(bytes);
      assert.equal(draft.name, 'Globex');
    }
  });
});
