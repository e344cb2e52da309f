// Generated brand-guideline documents for the extraction benchmark: a 20-page PDF (pdf-lib) with
// headings, body copy, printed colour values, swatches and logo images, and a DOCX of similar
// content (the test fixtures' DOCX parts with a longer body).
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import { guidelineDocx, logoPng, paragraph } from '../../test/brand-kits/fixtures.ts';

const SECTIONS = [
  ['Brand story', 'Northwind Outfitters makes dependable outdoor gear for people who explore close to home.'],
  ['Mission', 'We make the outdoors easy to reach for every family, every weekend, in every season.'],
  ['Tone of voice', 'Our voice is warm, practical and encouraging. We explain, we never lecture or shout.'],
  ['Target audience', 'Weekend hikers, families new to the outdoors and city people who want fresh air.'],
  ['Colours', 'Primary Forest Green HEX #2F5D50. Secondary Sand HEX #E9C46A. Accent Ember HEX #E76F51.'],
  ['Typography', 'Montserrat for headings and titles. Source Sans 3 for body copy and captions.'],
  ['Logo', 'Always place the logo on a light background with clear space of one letter height.'],
  ['Imagery', 'Natural light, real people on real trails, no staged studio shots and no stock models.'],
  ['Content pillars', 'Trail guides. Gear care. Family adventures. Community stories.'],
  ['Competitors', 'Summit Supply, Ridge & Co, Peak Outfitters.'],
];
const FILLER =
  'Every piece of content should help someone get outside this weekend: name the trail, the distance, the gear that matters and the one mistake to avoid. ';

export async function twentyPagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const logo = await doc.embedPng(logoPng());
  for (let page = 0; page < 20; page++) {
    const p = doc.addPage([595, 842]);
    const [title = '', lead = ''] = SECTIONS[page % SECTIONS.length]!;
    p.drawText('Northwind Outfitters · Brand guidelines', { x: 40, y: 810, size: 8, font });
    p.drawText(`${title}${page >= SECTIONS.length ? ' (continued)' : ''}`, {
      x: 40,
      y: 760,
      size: 26,
      font: bold,
    });
    p.drawText(lead, { x: 40, y: 725, size: 11, font });
    for (let line = 0; line < 40; line++) {
      const text = FILLER.slice((line * 7) % 40, ((line * 7) % 40) + 95);
      p.drawText(text, { x: 40, y: 700 - line * 15, size: 10, font });
    }
    if (title === 'Colours') {
      const swatches = [rgb(0.18, 0.36, 0.31), rgb(0.91, 0.77, 0.42), rgb(0.91, 0.44, 0.32)];
      for (const [i, color] of swatches.entries())
        p.drawRectangle({ x: 40 + i * 90, y: 80, width: 70, height: 70, color });
    }
    if (page % 4 === 0) p.drawImage(logo, { x: 420, y: 740, width: 128, height: 64 });
    p.drawText(`${page + 1}`, { x: 550, y: 30, size: 8, font });
  }
  doc.setTitle('Northwind Outfitters brand guidelines');
  return doc.save();
}

/** A capitalised word of letters only, one for each n: a proper noun the text repeats
 * four times each, which the name finder weighs (it searched the whole text once for each). */
const properNoun = (n: number) =>
  `Q${Array.from({ length: 4 }, (_, k) => String.fromCharCode(97 + (Math.floor(n / 26 ** k) % 26))).join('')}`;

/** A DOCX of `count` short paragraphs, every other one naming fonts and a proper noun, the rest linking
 * a social account and printing a colour value: how extraction time grows with a document's length
 * (joining its lines, finding the lines around its font mentions, collecting its social links, the
 * colours' roles and notations and the name's proper nouns were each quadratic once). */
export const paragraphsDocx = (count: number): Uint8Array =>
  guidelineDocx({
    body: [
      // No "brand guidelines" title, which would name the brand before the text is searched.
      paragraph('Globex', 'Title'),
      ...Array.from({ length: count }, (_, i) =>
        paragraph(
          i % 2
            ? `Use Poppins for headings and Work Sans ${i} for body text, as ${properNoun(i >> 3)} does.`
            : `Paragraph ${i}: our brand speaks plainly at https://www.instagram.com/globex${i}, in #${(i * 7919).toString(16).padStart(6, '0').slice(-6)}.`,
        ),
      ),
    ].join(''),
    withLogo: false,
  });

export function longDocx(): Uint8Array {
  const body: string[] = [paragraph('Northwind Outfitters Brand Guidelines', 'Title')];
  for (let round = 0; round < 4; round++)
    for (const [title, lead] of SECTIONS) {
      body.push(paragraph(title!, 'Heading1'), paragraph(lead!));
      for (let i = 0; i < 8; i++) body.push(paragraph(FILLER));
    }
  return guidelineDocx({ body: body.join('') });
}
