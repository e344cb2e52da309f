import { createDeflate, constants as zlibConstants } from 'node:zlib';
import { encode } from 'fast-png';
import { strToU8, zipSync } from 'fflate';
import { PDFDict, PDFDocument, PDFName, PDFNumber, PDFString, rgb, StandardFonts } from 'pdf-lib';
import type { DocumentModel, TextLine } from '../../shared/brand-kits/extract/types.ts';

/** A 64×32 red mark on a transparent background. */
/** A line of text as the readers make them: page 1, 11 pt body text, 20 points below the one before. */
/** A read document as the extractor's finders take it: empty but for `over`. */
export const documentModel = (over: Partial<DocumentModel>): DocumentModel => ({
  format: 'docx',
  pages: 1,
  title: null,
  lines: [],
  links: [],
  fontUse: new Map(),
  shapes: [],
  printedColors: [],
  swatchPages: new Set(),
  themeColors: [],
  themeFonts: { headings: null, body: null },
  images: [],
  imagesSeen: 0,
  ...over,
});

export const textLine = (text: string, i: number, over: Partial<TextLine> = {}): TextLine => ({
  text,
  page: 1,
  size: 11,
  font: null,
  bold: false,
  level: 0,
  x: 0,
  y: -i * 20,
  ...over,
});

export function logoPng(): Uint8Array {
  const width = 64;
  const height = 32;
  const data = new Uint8Array(width * height * 4);
  for (let y = 4; y < 28; y++) {
    for (let x = 4; x < 60; x++) data.set([228, 87, 46, 255], (y * width + x) * 4);
  }
  return encode({ width, height, data, channels: 4, depth: 8 });
}

/** A 32×32 square mark. */
export function iconPng(): Uint8Array {
  const data = new Uint8Array(32 * 32 * 4).fill(255);
  for (let i = 0; i < 32 * 32; i++) data.set([10, 147, 150, 255], i * 4);
  return encode({ width: 32, height: 32, data, channels: 4, depth: 8 });
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(strToU8(type), 4);
  out.set(data, 8);
  let crc = 0xffffffff;
  for (const byte of out.subarray(4, 8 + data.length)) crc = CRC_TABLE[(crc ^ byte) & 255]! ^ (crc >>> 8);
  view.setUint32(8 + data.length, (crc ^ 0xffffffff) >>> 0);
  return out;
}

/**
 * zlib data that inflates to `mebibytes` MiB of `byte`, about 1 KB a MiB: one compressed MiB repeated
 * (zlib's output for a MiB of one byte is the same once its window holds only that byte, and a sync
 * flush ends each on a byte).
 */
async function inflatingRun(mebibytes: number, byte: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const mebibyte = () =>
    new Promise<Buffer>((resolve) => {
      deflate.write(Buffer.alloc(1024 * 1024, byte));
      deflate.flush(zlibConstants.Z_SYNC_FLUSH, () => resolve(Buffer.concat(out.splice(0))));
    });
  const first = await mebibyte();
  const next = await mebibyte();
  deflate.destroy();
  // Adler-32 of n bytes c: a = 1 + n·c, b = n + c·n(n+1)/2 (each modulo 65521).
  const [n, c] = [BigInt(mebibytes * 1024 * 1024), BigInt(byte)];
  const adler = (((n + (c * n * (n + 1n)) / 2n) % 65521n) << 16n) | ((1n + n * c) % 65521n);
  const end = Buffer.alloc(6);
  end.writeUInt16BE(0x0300); // an empty final block
  end.writeUInt32BE(Number(adler), 2);
  return Buffer.concat([first, ...Array<Buffer>(mebibytes - 1).fill(next), end]);
}

/** A valid 64×64 RGBA PNG whose pixel data inflates to `mebibytes` MiB of zeros (16 KiB is its size). */
export async function inflatingPng(mebibytes: number): Promise<Uint8Array> {
  const data = await inflatingRun(mebibytes, 0);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, 64);
  view.setUint32(4, 64);
  header.set([8, 6], 8);
  return Buffer.concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', data),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
}

/** A one-page PDF whose content stream, Flate-compressed, inflates to `mebibytes` MiB of blanks. */
export async function inflatingPdf(mebibytes: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const contents = doc.context.stream(await inflatingRun(mebibytes, 0x20), { Filter: 'FlateDecode' });
  page.node.set(PDFName.of('Contents'), doc.context.register(contents));
  return doc.save();
}

function addLink(doc: PDFDocument, page: ReturnType<PDFDocument['addPage']>, url: string, rect: number[]) {
  const annotation = doc.context.register(
    doc.context.obj({
      Type: 'Annot',
      Subtype: 'Link',
      Rect: rect,
      Border: [0, 0, 0],
      A: { Type: 'Action', S: 'URI', URI: PDFString.of(url) },
    }),
  );
  page.node.set(PDFName.of('Annots'), doc.context.obj([annotation]));
}

/** A five-page guideline with printed colours, named fonts, sections, links and a logo image. */
export async function guidelinePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const text = (
    page: ReturnType<PDFDocument['addPage']>,
    s: string,
    y: number,
    size = 11,
    f = font,
    x = 50,
  ) => page.drawText(s, { x, y, size, font: f });

  const cover = doc.addPage([600, 400]);
  text(cover, 'Acme Rocket', 300, 40, bold);
  text(cover, 'Brand Guidelines', 260, 20);
  text(cover, 'Launch every idea into orbit with joy', 200, 16);

  const colours = doc.addPage([600, 400]);
  text(colours, 'Colours', 350, 28, bold);
  text(colours, 'Primary', 310, 14, bold);
  text(colours, 'Rocket Red', 290);
  text(colours, 'HEX #E4572E', 276);
  text(colours, 'Secondary', 240, 14, bold);
  text(colours, 'Deep Blue', 220);
  text(colours, 'RGB 23 / 64 / 139', 206);
  text(colours, 'Accent', 170, 14, bold);
  text(colours, 'Sun Yellow', 150);
  text(colours, 'hex: ffc914', 136);
  text(colours, 'Specimen: Aa Bb 0123 456789 123456', 100);
  text(colours, 'Black text is always #000 on white paper for body copy and captions in print', 80);
  colours.drawRectangle({ x: 350, y: 260, width: 60, height: 60, color: rgb(0.2, 0.8, 0.2) });

  const type = doc.addPage([600, 400]);
  text(type, 'Typography', 350, 28, bold);
  text(type, 'Montserrat', 310, 14, bold);
  text(type, 'Use it for headings and titles.', 292);
  text(type, 'Merriweather', 250, 14, bold);
  text(type, 'Our body text face for long reading.', 232);
  text(type, 'Download it from fonts.google.com/specimen/Merriweather', 200);

  const words = doc.addPage([600, 400]);
  text(words, 'Mission', 350, 28, bold);
  text(words, 'We make space travel delightful for everyone. We ship every week.', 320);
  text(words, 'Tone of voice', 280, 28, bold);
  text(words, 'Our voice is bold, playful and precise. We never shout.', 250);
  text(words, 'Target audience', 210, 28, bold);
  text(words, 'Young engineers who build satellites in small teams.', 180);
  text(words, 'Visit acmerocket.io or follow twitter.com/acmerocket', 120);
  text(words, 'Instagram', 90);
  addLink(doc, words, 'https://www.instagram.com/acmerocket/', [50, 85, 120, 105]);

  const logo = doc.addPage([600, 400]);
  text(logo, 'Logo', 350, 28, bold);
  text(logo, 'Always use the logo on a light background.', 320);
  const image = await doc.embedPng(logoPng());
  logo.drawImage(image, { x: 50, y: 150, width: 128, height: 64 });

  doc.setTitle('acme_final_v3');
  return doc.save();
}

/**
 * A cover, then a colour page of two tables (primary and secondary colours), one row a colour under
 * the columns Name | HEX | RGB | CMYK | Pantone; the secondary colours' hex codes are bare.
 */
export async function colourTablePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const cover = doc.addPage([842, 595]);
  cover.drawText('Northwind Brand Guidelines', { x: 50, y: 400, size: 32, font: bold });
  cover.drawText('Fresh air for every home', { x: 50, y: 360, size: 16, font });
  const page = doc.addPage([842, 595]);
  const columns = [50, 200, 300, 420, 560];
  const row = (y: number, cells: string[], f = font) => {
    for (const [i, cell] of cells.entries()) page.drawText(cell, { x: columns[i]!, y, size: 11, font: f });
  };
  const table = (y: number, title: string, rows: string[][]) => {
    page.drawText(title, { x: 50, y, size: 14, font: bold });
    row(y - 20, ['Name', 'HEX', 'RGB', 'CMYK', 'Pantone'], bold);
    for (const [i, cells] of rows.entries()) row(y - 40 - i * 20, cells);
  };
  page.drawText('Colour palette', { x: 50, y: 540, size: 28, font: bold });
  table(500, 'Primary colours', [
    ['Fjord Blue', '#0A3D62', '10 61 98', '90 38 0 62', '2189 C'],
    ['Birch White', '#F5F1E8', '245 241 232', '0 2 5 4', '9224 C'],
  ]);
  table(400, 'Secondary colours', [
    ['Moss', '6A8D3A', '106 141 58', '25 0 59 45', '7742 C'],
    ['Ember', 'E4572E', '228 87 46', '0 62 80 11', '7417 C'],
    ['Slate', '4A4E57', '74 78 87', '15 10 0 66', '432 C'],
  ]);
  return doc.save();
}

/** Text at a place on a page: the text, x, y, then size (11) and bold. */
export type PlacedText = [text: string, x: number, y: number, size?: number, bold?: boolean];

/** A landscape A4 page for each list of placed texts, set in Helvetica (bold: Helvetica-Bold). */
export async function placedTextPdf(pages: PlacedText[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (const texts of pages) {
    const page = doc.addPage([842, 595]);
    for (const [text, x, y, size = 11, isBold = false] of texts)
      page.drawText(text, { x, y, size, font: isBold ? bold : regular });
  }
  return doc.save();
}

/** Three swatches of one size: #E64D1A, #1A80B3, #4D8033. */
function paintSwatches(page: ReturnType<PDFDocument['addPage']>) {
  page.drawRectangle({ x: 50, y: 150, width: 80, height: 80, color: rgb(230 / 255, 77 / 255, 26 / 255) });
  page.drawRectangle({ x: 150, y: 150, width: 80, height: 80, color: rgb(26 / 255, 128 / 255, 179 / 255) });
  page.drawRectangle({ x: 250, y: 150, width: 80, height: 80, color: rgb(77 / 255, 128 / 255, 51 / 255) });
}

/** Guideline that paints swatches but prints no values; page text is black. */
export async function swatchOnlyPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([600, 400]);
  page.drawText('Our colours', { x: 50, y: 350, size: 28, font });
  page.drawText('Ember, Lagoon and Moss carry the brand on every surface we design.', {
    x: 50,
    y: 320,
    size: 11,
    font,
  });
  paintSwatches(page);
  // A lone large decoration is not a swatch.
  page.drawRectangle({ x: 400, y: 20, width: 150, height: 40, color: rgb(0.6, 0, 0.6) });
  doc.setTitle('Initrode Brand Guidelines 2024');
  return doc.save();
}

/** A cover, then a Dutch colour page ("Kleuren") that paints swatches and prints no values. */
export async function dutchSwatchPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const cover = doc.addPage([600, 400]);
  cover.drawText('Initrode Merkrichtlijnen', { x: 50, y: 300, size: 28, font });
  const page = doc.addPage([600, 400]);
  page.drawText('Kleuren', { x: 50, y: 350, size: 28, font });
  page.drawText('Ember, Lagoon en Moss dragen het merk op elk oppervlak.', { x: 50, y: 320, size: 11, font });
  paintSwatches(page);
  return doc.save();
}

/**
 * Three plain pages (no logo or colour talk): an image on page 2, set in the cover's font, and on
 * page 3 a font used nowhere before. Only the cover and page 3 can change the draft.
 */
export async function plainPagesPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const courier = await doc.embedFont(StandardFonts.Courier);
  const image = await doc.embedPng(iconPng());
  const cover = doc.addPage([600, 400]);
  cover.drawText('Northwind Field Notes', { x: 50, y: 300, size: 28, font: helvetica });
  const photo = doc.addPage([600, 400]);
  photo.drawText('A photograph from the spring trip to the coast.', {
    x: 50,
    y: 300,
    size: 11,
    font: helvetica,
  });
  photo.drawImage(image, { x: 50, y: 100, width: 96, height: 96 });
  const code = doc.addPage([600, 400]);
  code.drawText('Every sample in our manuals is set like this line.', {
    x: 50,
    y: 300,
    size: 11,
    font: courier,
  });
  return doc.save();
}

/**
 * A cover in Helvetica, then `pages` plain pages each set in a font of its own (Courier, embedded
 * anew for each page): every one names its font only when it is drawn.
 */
export async function fontPagesPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([600, 400]).drawText('Northwind Field Notes', { x: 50, y: 300, size: 28, font: helvetica });
  for (let n = 1; n <= pages; n++) {
    const font = await doc.embedFont(StandardFonts.Courier);
    const page = doc.addPage([600, 400]);
    page.drawText(`Trail notes, day ${n}`, { x: 50, y: 340, size: 20, font });
    page.drawText('We walked along the ridge until the light went and the wind turned cold.', {
      x: 50,
      y: 300,
      size: 11,
      font,
    });
  }
  return doc.save();
}

/**
 * A page of `lines` in Helvetica whose widths give `glyph` none: pdf.js then reads a line that starts
 * with it as it reads some design tools' exports, the glyph a zero-width run marked end-of-line
 * ("I" | "t should be…"), the rest of the line another run.
 */
export async function widthlessGlyphPdf(lines: string[], glyph: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([600, 400]);
  for (const [i, text] of lines.entries()) page.drawText(text, { x: 50, y: 340 - i * 18, size: 13, font });
  await font.embed();
  const printable = Array.from({ length: 127 - 32 }, (_, i) => String.fromCharCode(32 + i));
  const widths = printable.map((c) => (c === glyph ? 0 : Math.round(font.widthOfTextAtSize(c, 1000))));
  const dict = doc.context.lookup(font.ref, PDFDict);
  dict.set(PDFName.of('FirstChar'), PDFNumber.of(32));
  dict.set(PDFName.of('LastChar'), PDFNumber.of(126));
  dict.set(PDFName.of('Widths'), doc.context.obj(widths));
  return doc.save();
}

/** A cover, then `logoPages` pages about the logo, each showing a mark of its own (distinct images). */
export async function logoPagesPdf(logoPages: number): Promise<{ pdf: Uint8Array; imagePages: number[] }> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([600, 400]).drawText('Vandelay Brand Guidelines', { x: 50, y: 300, size: 28, font });
  const imagePages: number[] = [];
  for (let n = 1; n <= logoPages; n++) {
    const page = doc.addPage([600, 400]);
    page.drawText(`Logo variant ${n}`, { x: 50, y: 350, size: 28, font });
    const data = new Uint8Array(32 * 32 * 4);
    for (let i = 0; i < 32 * 32; i++) data.set([n * 15, 100, 200 - n * 10, 255], i * 4);
    const image = await doc.embedPng(encode({ width: 32, height: 32, data, channels: 4, depth: 8 }));
    page.drawImage(image, { x: 50, y: 100, width: 96, height: 96 });
    imagePages.push(n + 1);
  }
  return { pdf: await doc.save(), imagePages };
}

/** A deck whose pages are painted blue but that never talks about colour. */
export async function colourlessPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([600, 400]);
  page.drawRectangle({ x: 0, y: 0, width: 600, height: 400, color: rgb(0.02, 0.34, 0.98) });
  page.drawRectangle({ x: 20, y: 20, width: 40, height: 40, color: rgb(0.9, 0.1, 0.1) });
  page.drawRectangle({ x: 80, y: 20, width: 40, height: 40, color: rgb(0.1, 0.9, 0.1) });
  page.drawText('How we write', { x: 50, y: 300, size: 28, font });
  page.drawText('Short sentences. Plain words. Call 555 123456 for help.', { x: 50, y: 250, size: 11, font });
  doc.setTitle('deck_final_v2');
  return doc.save();
}

/** A colour reference sheet printing `count` distinct hex values (tints, as big guidelines have). */
export async function tintSheetPdf(count: number): Promise<{ pdf: Uint8Array; colours: string[] }> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([600, 900]);
  page.drawText('Acme Brand Guidelines', { x: 40, y: 860, size: 24, font });
  page.drawText('Colours', { x: 40, y: 830, size: 18, font });
  const colours = Array.from(
    { length: count },
    (_, i) => `#${(0x102030 + i * 0x030507).toString(16).toUpperCase().padStart(6, '0')}`,
  );
  colours.forEach((hex, i) => {
    const [x, y] = [40 + (i % 3) * 180, 800 - Math.floor(i / 3) * 36];
    page.drawText(`Tint ${i + 1}  HEX ${hex}`, { x, y, size: 10, font });
  });
  return { pdf: await doc.save(), colours };
}

/** A minimal PDF whose /Encrypt dictionary needs a user password. */
export function encryptedPdf(): Uint8Array {
  const hex32 = 'A1'.repeat(32);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
    `<< /Filter /Standard /V 1 /R 2 /O <${hex32}> /U <${hex32}> /P -4 >>`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${'0'.repeat(32)}> <${'0'.repeat(32)}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return strToU8(out);
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function paragraph(text: string, style?: string, font?: string) {
  const pPr = style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : '';
  const rPr = font ? `<w:rPr><w:rFonts w:ascii="${font}" w:hAnsi="${font}"/></w:rPr>` : '';
  return `<w:p>${pPr}<w:r>${rPr}<w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
}

export interface DocxOptions {
  body?: string;
  theme?: boolean;
  withLogo?: boolean;
}

export function docxParts(options: DocxOptions = {}): Record<string, Uint8Array> {
  const { theme = true, withLogo = true } = options;
  const body =
    options.body ??
    [
      paragraph('Globex Brand Guidelines', 'Title'),
      paragraph('Mission', 'Heading1'),
      paragraph('We connect every household to clean energy. Fast and fair.'),
      paragraph('Competitors', 'Heading1'),
      paragraph('Initech, Umbrella Energy, Hooli Power'),
      paragraph('Content pillars', 'Heading1'),
      paragraph('Clean energy tips'),
      paragraph('Customer stories'),
      paragraph('Colours', 'Heading1'),
      paragraph('Our colours come from the theme of this document.'),
      paragraph('Industry', 'Heading1'),
      paragraph('Renewable energy retail for homes.'),
      paragraph('Imagery', 'Heading1'),
      paragraph('Bright daylight photography of real homes. No stock models.'),
      paragraph('SEO keywords', 'Heading1'),
      paragraph('solar panels, home battery, green tariff'),
      paragraph('Location', 'Heading1'),
      paragraph('Lisbon, Portugal'),
      paragraph('Logo', 'Heading1'),
      withLogo
        ? `<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:docPr id="1" name="Globex logo"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData><a:blip r:embed="rIdLogo"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`
        : '',
      withLogo
        ? `<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:docPr id="2" name="Globex app icon"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData><a:blip r:embed="rIdIcon"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`
        : '',
      `<w:p><w:hyperlink r:id="rIdLink"><w:r><w:t>Follow us on LinkedIn</w:t></w:r></w:hyperlink></w:p>`,
    ].join('');
  const parts: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
    ),
    'word/document.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>${body}</w:body></w:document>`,
    ),
    'word/styles.xml': strToU8(
      `<?xml version="1.0"?><w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>`,
    ),
    'word/_rels/document.xml.rels': strToU8(
      `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdLink" Type="${R}/hyperlink" Target="https://www.linkedin.com/company/globex" TargetMode="External"/><Relationship Id="rIdLogo" Type="${R}/image" Target="media/image1.png"/><Relationship Id="rIdIcon" Type="${R}/image" Target="media/image2.png"/></Relationships>`,
    ),
    'docProps/core.xml': strToU8(
      '<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Globex Brand Guidelines</dc:title></cp:coreProperties>',
    ),
  };
  if (theme) {
    parts['word/theme/theme1.xml'] = strToU8(
      `<?xml version="1.0"?><a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Globex"><a:themeElements><a:clrScheme name="Globex"><a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1><a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="333333"/></a:dk2><a:lt2><a:srgbClr val="EEEEEE"/></a:lt2><a:accent1><a:srgbClr val="0A9396"/></a:accent1><a:accent2><a:srgbClr val="EE9B00"/></a:accent2><a:accent3><a:srgbClr val="AE2012"/></a:accent3></a:clrScheme><a:fontScheme name="Globex"><a:majorFont><a:latin typeface="Poppins"/></a:majorFont><a:minorFont><a:latin typeface="Work Sans"/></a:minorFont></a:fontScheme></a:themeElements></a:theme>`,
    );
  }
  if (withLogo) {
    parts['word/media/image1.png'] = logoPng();
    parts['word/media/image2.png'] = iconPng();
  }
  return parts;
}

export const guidelineDocx = (options?: DocxOptions) => zipSync(docxParts(options));

/** Rewrites what the central directory declares of one entry: its CRC-32, its uncompressed size. */
export function withDeclared(
  zip: Uint8Array,
  entry: string,
  declared: { crc?: number; size?: number },
): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  const name = strToU8(entry);
  for (let i = 0; i < out.length - 46; i++) {
    if (view.getUint32(i, true) !== 0x02014b50) continue;
    const nameLength = view.getUint16(i + 28, true);
    const candidate = out.subarray(i + 46, i + 46 + nameLength);
    if (candidate.length !== name.length || !candidate.every((b, k) => b === name[k])) continue;
    if (declared.crc !== undefined) view.setUint32(i + 16, declared.crc, true);
    if (declared.size !== undefined) view.setUint32(i + 24, declared.size, true);
  }
  return out;
}

export { paragraph, strToU8, zipSync };
