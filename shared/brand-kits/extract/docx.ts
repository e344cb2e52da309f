import { crc32, inflateSync } from 'node:zlib';
import { decode as decodePng } from 'fast-png';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { strFromU8, unzipSync } from 'fflate';
import { normalizeHex, printedColors, swatchPages } from './colors.ts';
import { familyFromFontName } from './fonts.ts';
import { assignHeadingLevels } from './layout.ts';
import {
  checkDeadline,
  type Deadline,
  DOCX_UNPACK_FAILED,
  DocumentError,
  type DocumentModel,
  isZip,
  type PaintedShape,
  type RawImage,
  type TextLine,
} from './types.ts';

const MAX_TOTAL_INFLATED = 50 * 1024 * 1024;
const MAX_RATIO = 100;
/** Tiny XML parts legitimately compress very well; the ratio rule is for parts that could hurt. */
const RATIO_FLOOR = 1024 * 1024;
/** Entries a DOCX may hold: Word writes tens to a few hundred (a part per image, header, footer…). */
const MAX_ENTRIES = 10_000;
const MAX_MEDIA = 12;
/** Images decoded for logo candidates: the first image and those named like logos. */
const MAX_DECODED = 4;
const LOGO_LABEL = /logo|wordmark|brand ?mark|icon|symbol|emblem|signet/i;
const MAX_MEDIA_BYTES = 5 * 1024 * 1024;
const MAX_IMAGE_PIXELS = 4_000_000;

/** Office's stock themes: their colours and fonts say nothing about the brand. */
const DEFAULT_ACCENT1 = new Set(['#4F81BD', '#5B9BD5', '#4472C4', '#156082', '#0F9ED5']);
const DEFAULT_THEME_FONTS = new Set([
  'calibri',
  'calibri light',
  'aptos',
  'aptos display',
  'cambria',
  'times new roman',
  'arial',
]);

type XmlNode = Record<string, unknown>;
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  preserveOrder: true,
  trimValues: false,
  processEntities: true,
  parseTagValue: false,
  parseAttributeValue: false,
});

const BODY_NOT_XML = 'The DOCX document body is not valid XML.';

/** Word never writes a DOCTYPE; one in an upload can only be an entity-expansion attack. */
function parseXml(xml: string): XmlNode[] {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml))
    throw new DocumentError('invalid', 'The DOCX file contains XML that Word never writes.');
  return parser.parse(xml) as XmlNode[];
}

const tagOf = (node: XmlNode) => Object.keys(node).find((k) => k !== ':@') ?? '';
const childrenOf = (node: XmlNode) => (node[tagOf(node)] as XmlNode[] | undefined) ?? [];
const attr = (node: XmlNode, name: string) => {
  const attrs = node[':@'] as Record<string, string> | undefined;
  return attrs?.[name];
};

/**
 * The nodes under `nodes` in document order, without those `skip` names nor what they hold. An
 * mc:AlternateContent's mc:Fallback repeats its mc:Choice for older readers (Word writes every text
 * box twice so): only the choice is read. A loop with its own stack: a generator nested per level
 * handed each node up through every level above it.
 */
function* walk(nodes: XmlNode[], skip?: (tag: string) => boolean): Generator<XmlNode> {
  const stack: { nodes: XmlNode[]; next: number }[] = [{ nodes, next: 0 }];
  while (stack.length > 0) {
    const top = stack.at(-1)!;
    if (top.next >= top.nodes.length) {
      stack.pop();
      continue;
    }
    const node = top.nodes[top.next++]!;
    const tag = tagOf(node);
    if (skip?.(tag)) continue;
    yield node;
    const kids = node[tag];
    if (!Array.isArray(kids)) continue;
    const alternatives = tag === 'mc:AlternateContent' && kids.some((k) => tagOf(k) === 'mc:Choice');
    stack.push({ nodes: alternatives ? kids.filter((k) => tagOf(k) !== 'mc:Fallback') : kids, next: 0 });
  }
}
const find = (nodes: XmlNode[], tag: string, skip?: (tag: string) => boolean) => {
  for (const node of walk(nodes, skip)) if (tagOf(node) === tag) return node;
  return null;
};
const textOf = (nodes: XmlNode[]) => {
  let out = '';
  for (const node of walk(nodes)) if (tagOf(node) === '#text') out += String(node['#text'] ?? '');
  return out;
};
/**
 * A paragraph's own content: a paragraph nested in it (a text box's, or one inside another) is a line
 * of its own, read when the document's walk reaches it. Read in every paragraph around it too, its
 * text came once per level (up to 100 times: 528 KB of DOCX took 17.5 s and 2.2 GB).
 */
const nestedParagraph = (tag: string) => tag === 'w:p';
const nestedDrawing = (tag: string) => tag === 'w:p' || tag === 'w:drawing';
/** The run's own properties (w:rPr), not those of what it holds. */
const runProperties = (runKids: XmlNode[]) => {
  const rPr = runKids.find((k) => tagOf(k) === 'w:rPr');
  return rPr ? childrenOf(rPr) : [];
};

/** Refuses zip bombs from the central directory's entry count and declared sizes, before anything
 * is inflated. */
function checkZipSizes(bytes: Uint8Array): void {
  let entries = 0;
  let total = 0;
  let compressed = 0;
  let bomb = false;
  try {
    unzipSync(bytes, {
      filter(info) {
        entries++;
        total += info.originalSize;
        compressed += info.size;
        if (info.originalSize > RATIO_FLOOR && info.originalSize > MAX_RATIO * Math.max(1, info.size))
          bomb = true;
        return false;
      },
    });
  } catch {
    throw new DocumentError('invalid', 'The DOCX file is corrupt: its zip structure cannot be read.');
  }
  if (entries > MAX_ENTRIES)
    throw new DocumentError(
      'too_large',
      `The DOCX file holds more than ${MAX_ENTRIES.toLocaleString('en-US')} entries (Word writes tens to a few hundred).`,
    );
  if (total > MAX_TOTAL_INFLATED)
    throw new DocumentError('too_large', 'The DOCX file would expand to more than 50 MB when unpacked.');
  if (bomb || (total > RATIO_FLOOR && total > MAX_RATIO * Math.max(1, compressed)))
    throw new DocumentError(
      'too_large',
      'The DOCX file is compressed suspiciously well (more than 100 times).',
    );
}

/**
 * Each entry's CRC-32s (a name may be given twice), from the zip's central directory, walked as fflate
 * walks it (zip64 included). fflate reads the checksums but neither checks them nor gives them out,
 * and inflates into the size an entry declares: a part damaged or declared shorter than it is was read
 * as it came, and a partial draft answered 200. fflate reads past the end as zeros; a directory that
 * runs past the end is corrupt here.
 */
function zipChecksums(bytes: Uint8Array): Map<string, number[]> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const corrupt = () =>
    new DocumentError('invalid', 'The DOCX file is corrupt: its zip directory cannot be read.');
  const u16 = (at: number) => (at >= 0 && at + 2 <= bytes.length ? view.getUint16(at, true) : Number.NaN);
  const u32 = (at: number) => (at >= 0 && at + 4 <= bytes.length ? view.getUint32(at, true) : Number.NaN);
  // checkZipSizes has had fflate find the end record: it is there.
  let end = bytes.length - 22;
  while (end > 0 && u32(end) !== 0x06054b50) end--;
  let count = u16(end + 8);
  let at = u32(end + 16);
  if (u32(end - 20) === 0x07064b50) {
    const zip64End = u32(end - 12);
    if (u32(zip64End) === 0x06064b50) {
      count = u32(zip64End + 32);
      at = u32(zip64End + 48);
    }
  }
  const checksums = new Map<string, number[]>();
  for (let entry = 0; entry < count; entry++) {
    const nameLength = u16(at + 28);
    const next = at + 46 + nameLength + u16(at + 30) + u16(at + 32);
    if (!(next <= bytes.length)) throw corrupt(); // NaN too: a field past the end
    const name = strFromU8(bytes.subarray(at + 46, at + 46 + nameLength), (u16(at + 8) & 0x800) === 0);
    const named = checksums.get(name);
    if (named) named.push(u32(at + 16));
    else checksums.set(name, [u32(at + 16)]);
    at = next;
  }
  return checksums;
}

/** 'docx' when the zip holds word/document.xml; 'corrupt' for a broken zip that looks like Word's. */
export function sniffDocx(bytes: Uint8Array): 'docx' | 'corrupt' | 'other' {
  if (!isZip(bytes)) return 'other';
  let found = false;
  try {
    unzipSync(bytes, {
      filter(info) {
        if (info.name === 'word/document.xml') found = true;
        return false;
      },
    });
  } catch {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 4096));
    return /word\/|\[Content_Types\]\.xml/.test(head) ? 'corrupt' : 'other';
  }
  return found ? 'docx' : 'other';
}

interface StyleInfo {
  name: string;
  font: string | null;
  size: number | null;
  bold: boolean;
  outline: number | null;
}

function readStyles(xml: string | undefined): Map<string, StyleInfo> {
  const styles = new Map<string, StyleInfo>();
  if (!xml) return styles;
  for (const node of walk(parseXml(xml))) {
    if (tagOf(node) !== 'w:style') continue;
    const id = attr(node, 'w:styleId');
    if (!id) continue;
    const kids = childrenOf(node);
    // A style's own settings: a w:style inside another is read as itself.
    const own = (tag: string) => find(kids, tag, (t) => t === 'w:style');
    const name = attr(own('w:name') ?? {}, 'w:val') ?? id;
    const fonts = own('w:rFonts');
    const size = own('w:sz');
    const outline = own('w:outlineLvl');
    styles.set(id, {
      name,
      font: fonts ? (attr(fonts, 'w:ascii') ?? attr(fonts, 'w:hAnsi') ?? null) : null,
      size: size ? Number(attr(size, 'w:val')) / 2 : null,
      bold: own('w:b') !== null,
      outline: outline ? Number(attr(outline, 'w:val')) : null,
    });
  }
  return styles;
}

function readTheme(xml: string | undefined) {
  const colors: string[] = [];
  let headings: string | null = null;
  let body: string | null = null;
  if (!xml) return { colors, headings, body };
  const nodes = parseXml(xml);
  const scheme = find(nodes, 'a:clrScheme');
  const byName = new Map<string, string>();
  for (const slot of scheme ? childrenOf(scheme) : []) {
    const tag = tagOf(slot).replace(/^a:/, '');
    const value = find(childrenOf(slot), 'a:srgbClr') ?? find(childrenOf(slot), 'a:sysClr');
    const hex = value ? normalizeHex(attr(value, 'val') ?? attr(value, 'lastClr') ?? '') : null;
    if (hex) byName.set(tag, hex);
  }
  if (!DEFAULT_ACCENT1.has(byName.get('accent1') ?? '')) {
    for (const slot of ['accent1', 'accent2', 'accent3', 'accent4', 'accent5', 'accent6', 'dk2', 'lt2']) {
      const hex = byName.get(slot);
      if (hex && !colors.includes(hex)) colors.push(hex);
    }
  }
  const latin = (tag: string) => {
    const font = find(nodes, tag);
    const typeface = font ? attr(find(childrenOf(font), 'a:latin') ?? {}, 'typeface') : undefined;
    return typeface && !DEFAULT_THEME_FONTS.has(typeface.toLowerCase()) ? typeface : null;
  };
  headings = latin('a:majorFont');
  body = latin('a:minorFont');
  return { colors, headings, body };
}

function headingLevel(style: StyleInfo | undefined): number {
  if (!style) return 0;
  if (/^(title|titel|titre|título)$/i.test(style.name)) return 1;
  const m = /^(heading|überschrift|titre|título)\s*(\d)$/i.exec(style.name);
  if (m) return Number(m[2]) + 1;
  if (style.outline !== null && style.outline < 9) return style.outline + 2;
  return 0;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const fitsLogo = ({ width, height }: { width: number; height: number }) =>
  width * height <= MAX_IMAGE_PIXELS && width >= 16 && height >= 16;

/**
 * Whether a PNG is a size worth decoding, told from its header and its pixel data inflated no further
 * than that size allows. The decoder inflates everything first: a 780 KB PNG whose header claims
 * 80,000 × 80,000 pixels, or whose data inflates to 800 MB whatever its header says, took 2.4 GB.
 */
function pngFits(data: Uint8Array): boolean {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const type = (at: number) => String.fromCharCode(...data.subarray(at + 4, at + 8));
  if (data.length < 33 || type(8) !== 'IHDR') return false;
  const [width, height, depth, colour] = [view.getUint32(16), view.getUint32(20), data[24]!, data[25]!];
  const channels = CHANNELS[colour];
  if (!channels || !fitsLogo({ width, height })) return false;
  const idat: Uint8Array[] = [];
  for (let at = 8; at + 8 <= data.length; at += 12 + view.getUint32(at)) {
    if (type(at) === 'IDAT') idat.push(data.subarray(at + 8, at + 8 + view.getUint32(at)));
  }
  // One filter byte a row, and for an interlaced image up to seven passes of padded rows.
  const rows = height * (1 + Math.ceil((width * channels * depth) / 8)) + 14 * height;
  try {
    inflateSync(Buffer.concat(idat), { maxOutputLength: rows });
    return true;
  } catch {
    return false;
  }
}

function readImage(name: string, data: Uint8Array, label: string | null): RawImage | null {
  if (!/\.png$/i.test(name)) return null; // JPEG/EMF logos are not decoded (see known limits).
  if (!pngFits(data)) return null;
  try {
    const png = decodePng(data);
    if (!fitsLogo(png)) return null;
    const pixels = png.width * png.height;
    const rgba = new Uint8Array(pixels * 4);
    const src = png.data;
    const shift = png.depth === 16 ? 8 : 0;
    const palette = png.palette;
    for (let p = 0; p < pixels; p++) {
      const d = p * 4;
      if (palette) {
        const entry = palette[src[p]!] ?? [0, 0, 0];
        rgba.set([entry[0]!, entry[1]!, entry[2]!, entry[3] ?? 255], d);
        continue;
      }
      const c = png.channels;
      const s = p * c;
      const v = (i: number) => (src[s + i]! >> shift) & 255;
      if (c >= 3) rgba.set([v(0), v(1), v(2), c === 4 ? v(3) : 255], d);
      else rgba.set([v(0), v(0), v(0), c === 2 ? v(1) : 255], d);
    }
    return { page: 1, width: png.width, height: png.height, rgba, name: label ?? name, pageShare: null };
  } catch {
    return null;
  }
}

export function readDocx(bytes: Uint8Array, deadline: Deadline): DocumentModel {
  checkZipSizes(bytes);
  const wanted = (name: string) =>
    name === 'word/document.xml' ||
    name === 'word/styles.xml' ||
    name === 'word/theme/theme1.xml' ||
    name === 'docProps/core.xml' ||
    name === 'word/_rels/document.xml.rels';
  let files: Record<string, Uint8Array>;
  let mediaCount = 0;
  try {
    files = unzipSync(bytes, {
      filter: (info) =>
        wanted(info.name) ||
        (info.name.startsWith('word/media/') &&
          info.originalSize <= MAX_MEDIA_BYTES &&
          /\.png$/i.test(info.name) &&
          mediaCount++ < MAX_MEDIA),
    });
  } catch {
    throw new DocumentError('invalid', DOCX_UNPACK_FAILED);
  }
  const checksums = zipChecksums(bytes);
  for (const [name, data] of Object.entries(files))
    if (!checksums.get(name)?.includes(crc32(data)))
      throw new DocumentError('invalid', `The DOCX file is corrupt: its part ${name} fails its checksum.`);
  const documentXml = files['word/document.xml'];
  if (!documentXml) throw new DocumentError('invalid', 'The DOCX file has no document body.');
  const xml = (name: string) => {
    const data = files[name];
    return data ? strFromU8(data) : undefined;
  };

  let body: XmlNode[];
  try {
    body = parseXml(strFromU8(documentXml));
  } catch (error) {
    if (error instanceof DocumentError) throw error;
    throw new DocumentError('invalid', BODY_NOT_XML);
  }
  const styles = readStyles(xml('word/styles.xml'));
  const theme = readTheme(xml('word/theme/theme1.xml'));
  const coreXml = xml('docProps/core.xml');
  const title = coreXml ? textOf([find(parseXml(coreXml), 'dc:title') ?? {}]).trim() || null : null;

  const rels = new Map<string, string>();
  const relsXml = xml('word/_rels/document.xml.rels');
  if (relsXml) {
    for (const node of walk(parseXml(relsXml))) {
      const id = attr(node, 'Id');
      const target = attr(node, 'Target');
      if (tagOf(node) === 'Relationship' && id && target) rels.set(id, target);
    }
  }
  const themeFont = (ref: string | undefined) =>
    ref?.startsWith('major') ? theme.headings : ref?.startsWith('minor') ? theme.body : null;

  const lines: TextLine[] = [];
  const links: string[] = [];
  const fontUse = new Map<string, number>();
  const shapes: PaintedShape[] = [];
  const imageNames = new Map<string, string>();
  // A set, in the order first drawn: a list searched once a drawing took the square of the drawings
  // (64,000 of them in 527 KB: 65 s before the first paragraph read the clock).
  const imageOrder = new Set<string>();
  for (const node of walk(body)) {
    const tag = tagOf(node);
    if (tag === 'w:hyperlink') {
      const target = rels.get(attr(node, 'r:id') ?? '');
      if (target && /^https?:|^www\./i.test(target)) links.push(target);
    } else if (tag === 'w:shd') {
      const fill = normalizeHex(attr(node, 'w:fill') ?? '');
      if (fill) shapes.push({ hex: fill, page: 1, width: 20, height: 20 });
    } else if (tag === 'w:drawing') {
      const kids = childrenOf(node);
      // A text box's pictures are drawings of their own.
      const doc = find(kids, 'wp:docPr', nestedDrawing);
      const blip = find(kids, 'a:blip', nestedDrawing);
      const target = rels.get(attr(blip ?? {}, 'r:embed') ?? '');
      const label = [attr(doc ?? {}, 'name'), attr(doc ?? {}, 'descr'), attr(doc ?? {}, 'title')]
        .filter(Boolean)
        .join(' ');
      const path = target ? `word/${target.replace(/^\.?\//, '')}` : null;
      if (path) imageOrder.add(path);
      if (path && label) imageNames.set(path, label);
    } else if (tag === 'w:p') {
      checkDeadline(deadline);
      const kids = childrenOf(node);
      const pStyle = find(kids, 'w:pStyle', nestedParagraph);
      const style = styles.get(attr(pStyle ?? {}, 'w:val') ?? '') ?? styles.get('Normal');
      let text = '';
      let font: string | null = null;
      let size: number | null = null;
      let bold = false;
      for (const run of walk(kids, nestedParagraph)) {
        if (tagOf(run) !== 'w:r') continue;
        const runKids = childrenOf(run);
        const runText = textOf(runKids.filter((k) => tagOf(k) === 'w:t'));
        if (!runText) continue;
        const props = runProperties(runKids);
        const rFonts = find(props, 'w:rFonts');
        const raw =
          attr(rFonts ?? {}, 'w:ascii') ??
          attr(rFonts ?? {}, 'w:hAnsi') ??
          themeFont(attr(rFonts ?? {}, 'w:asciiTheme')) ??
          style?.font ??
          theme.body;
        const family = raw ? familyFromFontName(raw) : null;
        if (family) fontUse.set(family, (fontUse.get(family) ?? 0) + runText.length);
        if (!text) {
          font = family;
          const sz = find(props, 'w:sz');
          size = sz ? Number(attr(sz, 'w:val')) / 2 : null;
          bold = find(props, 'w:b') !== null;
        }
        text += runText;
      }
      const clean = text.replace(/\s+/g, ' ').trim();
      if (!clean) continue;
      const line: TextLine = {
        text: clean,
        page: 1,
        size: size ?? style?.size ?? 11,
        font,
        bold: bold || (style?.bold ?? false),
        level: headingLevel(style),
        x: 0,
        y: -lines.length * 20,
      };
      lines.push(line);
    }
  }
  const styled = lines.some((l) => l.level > 0);
  // Documents without heading styles still set headings larger; fall back to sizes.
  if (!styled) assignHeadingLevels(lines);

  const images: RawImage[] = [];
  const media = Object.keys(files).filter((name) => name.startsWith('word/media/'));
  const unpacked = new Set(media);
  const inOrder = [
    ...[...imageOrder].filter((n) => unpacked.has(n)),
    ...media.filter((n) => !imageOrder.has(n)),
  ];
  const candidates = inOrder.filter((name, i) => i === 0 || LOGO_LABEL.test(imageNames.get(name) ?? ''));
  for (const name of candidates.slice(0, MAX_DECODED)) {
    const image = readImage(name, files[name]!, imageNames.get(name) ?? null);
    // The document's first image plays the cover's part: an unlabelled logo candidate.
    if (image) images.push({ ...image, page: name === inOrder[0] ? 1 : 2 });
  }
  if (lines.length === 0 && images.length === 0)
    // The parser is lenient: a body cut short parses to nothing, which is corrupt, not empty.
    throw new DocumentError(
      'invalid',
      XMLValidator.validate(strFromU8(documentXml)) === true ? 'The DOCX document is empty.' : BODY_NOT_XML,
    );
  return {
    format: 'docx',
    pages: 1,
    title,
    lines,
    links,
    fontUse,
    shapes,
    printedColors: printedColors(lines),
    swatchPages: swatchPages(lines, 1),
    themeColors: theme.colors,
    themeFonts: {
      headings: theme.headings ? familyFromFontName(theme.headings) : null,
      body: theme.body ? familyFromFontName(theme.body) : null,
    },
    images,
    imagesSeen: Object.keys(files).filter((n) => n.startsWith('word/media/')).length,
  };
}
