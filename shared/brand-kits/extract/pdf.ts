import { printedColors, swatchPages } from './colors.ts';
import { familyFromFontName, isBoldFontName } from './fonts.ts';
import { assignHeadingLevels } from './layout.ts';
import {
  type CancelSignal,
  checkDeadline,
  type Deadline,
  DocumentError,
  type DocumentModel,
  type PaintedShape,
  type RawImage,
  type TextLine,
  timedOut,
} from './types.ts';

/** Brand guidelines rarely run past this; later pages add time, not signal. */
const MAX_PAGES = 60;
const MAX_IMAGES = 24;
/** Decoded pixels kept for logo candidates across the document (4 bytes each). */
const MAX_KEPT_PIXELS = 12_000_000;
const LOGO_PAGE_WORDS = /logo|wordmark|brand ?mark|icon|symbol|emblem|signet/i;
const MISUSE_WORDS = /\b(don['’]?t|do not|never|avoid|incorrect|misuse|wrong)\b/gi;
/** Pages of logo misuse examples show distorted logos; they are neither logos nor worth the time. */
const isMisusePage = (text: string) => (text.match(MISUSE_WORDS) ?? []).length >= 2;
/** pdf.js skips decoding images above this many pixels, which bounds memory. */
const MAX_IMAGE_PIXELS = 4_000_000;
const MIN_IMAGE_SIDE = 16;
/** Drawing operators of optional pages are read only while this lasts. */
const DRAWING_BUDGET_MS = 150;
/**
 * Essential pages (the cover, logo pages, colour pages while swatches are read) are drawn whatever the
 * time, up to this many: a clock budget dropped the logo page on a busy machine, silently, so the same
 * document gave a draft without logos. Only the deadline (a 422 that says so) stops them.
 */
const MAX_ESSENTIAL_PAGES = 12;
/**
 * Pages set in a font not yet named are drawn whatever the time too, up to this many (each names one
 * or more fonts): a line's typeface and weight decide the body font (the most used), the headings and
 * the bold lead-ins that end a sentence, so within the time budget the same document drafted another
 * body font and mission on a busy machine.
 */
const MAX_FONT_PAGES = 12;

type PdfJs = typeof import('unpdf/pdfjs');
type Matrix = [number, number, number, number, number, number];

let pdfjsLoading: Promise<{
  pdfjs: PdfJs;
  getDocumentProxy: typeof import('unpdf').getDocumentProxy;
}> | null = null;

/** pdf.js is heavy; only PDF extraction needs it, so load it on first use. */
export function loadPdfJs() {
  pdfjsLoading ??= (async () => {
    polyfillTransferToFixedLength();
    const unpdf = await import('unpdf');
    const pdfjs = (await unpdf.getResolvedPDFJS()) as unknown as PdfJs;
    return { pdfjs, getDocumentProxy: unpdf.getDocumentProxy };
  })();
  return pdfjsLoading;
}

/**
 * The serverless pdf.js build calls ArrayBuffer#transferToFixedLength (Node >= 21) when it hands fonts
 * over; Node 20 lacks it. A copying stand-in is enough for that use.
 */
function polyfillTransferToFixedLength(): void {
  const proto = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: unknown };
  if (typeof proto.transferToFixedLength === 'function') return;
  Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
    value(this: ArrayBuffer, length: number = this.byteLength) {
      const copy = new ArrayBuffer(length);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return copy;
    },
    writable: true,
    configurable: true,
  });
}

function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

/** Counts path segments in pdf.js's packed path data (moveTo 0, lineTo 1, curveTo 2, quadTo 3, close 4). */
function segmentCount(path: ArrayLike<number>): number {
  let count = 0;
  for (let i = 0; i < path.length; count++) {
    const op = path[i];
    i += op === 0 || op === 1 ? 3 : op === 2 ? 7 : op === 3 ? 5 : 1;
  }
  return count;
}

interface PdfImageData {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

/** pdf.js ImageKind: 1 = 1 bit grey (packed rows), 2 = RGB, 3 = RGBA. */
function toRgba(img: PdfImageData): Uint8Array | null {
  const { width, height, data, kind } = img;
  if (!data) return null;
  const pixels = width * height;
  const out = new Uint8Array(pixels * 4);
  if (kind === 3 && data.length >= pixels * 4) {
    out.set(data.subarray(0, pixels * 4));
  } else if (kind === 2 && data.length >= pixels * 3) {
    for (let p = 0, s = 0, d = 0; p < pixels; p++, s += 3, d += 4) {
      out[d] = data[s]!;
      out[d + 1] = data[s + 1]!;
      out[d + 2] = data[s + 2]!;
      out[d + 3] = 255;
    }
  } else if (kind === 1) {
    const rowBytes = (width + 7) >> 3;
    if (data.length < rowBytes * height) return null;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const bit = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1;
        const d = (y * width + x) * 4;
        const v = bit ? 255 : 0;
        out[d] = v;
        out[d + 1] = v;
        out[d + 2] = v;
        out[d + 3] = 255;
      }
    }
  } else {
    return null;
  }
  return out;
}

/**
 * An image of the operator list, once pdf.js has decoded it: every one arrives, an undecodable one as
 * null (pdf.js's own renderer waits for them so). No wait of its own: a 300 ms one ran out on a busy
 * machine and dropped the logo silently; the extraction's deadline bounds it, with a 422 that says so.
 */
function objectOnce<T>(
  objs: { get(id: string, cb: (v: T) => void): void; has(id: string): boolean },
  id: string,
): Promise<T | null> {
  return new Promise((resolve) => {
    try {
      objs.get(id, resolve);
    } catch {
      resolve(null);
    }
  });
}

interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  fontName: string;
  hasEOL: boolean;
}

function isPasswordError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'PasswordException' || /password/i.test(error.message));
}

export async function readPdf(bytes: Uint8Array, deadline: Deadline, signal: CancelSignal) {
  const { pdfjs, getDocumentProxy } = await loadPdfJs();
  const OPS = pdfjs.OPS;
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given, so hand it a copy.
    pdf = await getDocumentProxy(bytes.slice(), {
      maxImageSize: MAX_IMAGE_PIXELS,
      isOffscreenCanvasSupported: false,
      isImageDecoderSupported: false,
      useSystemFonts: false,
      disableFontFace: true,
      stopAtErrors: false,
      verbosity: 0,
    });
  } catch (error) {
    if (isPasswordError(error)) throw new DocumentError('invalid', 'The PDF is encrypted with a password.');
    throw new DocumentError('invalid', 'The PDF is corrupt and cannot be read.');
  }
  // Stop pdf.js mid-page when the deadline passes instead of letting it finish in the background.
  signal.onCancel = () => void pdf.destroy();
  if (signal.cancelled) signal.onCancel();
  try {
    return await readOpenPdf(pdf, OPS, deadline, signal);
  } finally {
    void pdf.destroy();
  }
}

type OpenPdf = Awaited<ReturnType<typeof import('unpdf').getDocumentProxy>>;

async function readOpenPdf(
  pdf: OpenPdf,
  OPS: PdfJs['OPS'],
  deadline: Deadline,
  signal: CancelSignal,
): Promise<DocumentModel> {
  if (pdf.numPages < 1) throw new DocumentError('invalid', 'The PDF has no pages.');
  const meta = await pdf.getMetadata().catch(() => null);
  const info = (meta?.info ?? {}) as { Title?: unknown };
  const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : null;

  const links: string[] = [];
  const shapes: PaintedShape[] = [];
  const images: RawImage[] = [];
  const seenImages = new Set<string>();
  const fontNames = new Map<string, string>();
  let imagesSeen = 0;
  let keptPixels = 0;
  const pages = Math.min(pdf.numPages, MAX_PAGES);
  // One text for every way the time runs out (the timer, or this check before the timer could fire).
  const checkTime = () => {
    if (signal.cancelled) throw timedOut(deadline.ms);
    checkDeadline(deadline);
  };

  // Pass 1: text and links of every page; cheap, and it tells which pages are worth drawing.
  const pageItems: TextItemLike[][] = [];
  for (let pageNo = 1; pageNo <= pages; pageNo++) {
    checkTime();
    const page = await pdf.getPage(pageNo);
    const text = await page.getTextContent();
    pageItems.push(text.items as TextItemLike[]);
    const annotations = await page.getAnnotations().catch(() => []);
    for (const a of annotations as { url?: string; unsafeUrl?: string }[]) {
      const url = a.url ?? a.unsafeUrl;
      if (typeof url === 'string') links.push(url);
    }
  }

  // Pass 2: drawing operators (fonts, swatches, images), pages that matter first, within a time budget.
  const drawStarted = Date.now();
  const pageTexts = pageItems.map((items) => items.map((i) => i.str).join(' '));
  // Lines are joined once; their typefaces are filled in when this pass has named the fonts.
  const lines: TextLine[] = [];
  const lineFonts: string[] = [];
  pageItems.forEach((items, i) => {
    appendLines(items, i + 1, lines, lineFonts);
  });
  repairSplitWords(lines);
  const printed = printedColors(lines);
  const colourPages = swatchPages(lines, pdf.numPages);
  // Painted swatches make the palette only when the document prints no colour values.
  const readsSwatches = printed.length === 0;
  // Drawing a page can change the draft only through logos (the cover and logo pages), painted
  // swatches (colour pages, while no values are printed) and the names of the fonts its text is set
  // in; a page with none of these is not drawn, which leaves the time budget to pages that matter.
  const logoPage = (pageNo: number) => pageNo === 1 || LOGO_PAGE_WORDS.test(pageTexts[pageNo - 1]!);
  const pageFonts = pageItems.map(
    (items) => new Set(items.filter((i) => typeof i.str === 'string' && i.str.trim()).map((i) => i.fontName)),
  );
  const namesAFont = (pageNo: number) =>
    [...pageFonts[pageNo - 1]!].some((fontName) => !fontNames.has(fontName));
  const canChangeDraft = (pageNo: number) =>
    logoPage(pageNo) || (readsSwatches && colourPages.has(pageNo)) || namesAFont(pageNo);
  let essentialDrawn = 0;
  let fontPagesDrawn = 0;
  for (const { pageNo, essential } of drawingPlan(pageTexts, colourPages, readsSwatches)) {
    checkTime();
    if (!canChangeDraft(pageNo)) continue;
    if (essential) {
      if (essentialDrawn >= MAX_ESSENTIAL_PAGES) continue;
      essentialDrawn++;
    } else if (fontPagesDrawn < MAX_FONT_PAGES && namesAFont(pageNo)) fontPagesDrawn++;
    else if (Date.now() - drawStarted > DRAWING_BUDGET_MS) continue;
    const page = await pdf.getPage(pageNo);
    const view = page.view;
    const pageArea = Math.max(1, Math.abs((view[2]! - view[0]!) * (view[3]! - view[1]!)));
    const ops = await page.getOperatorList();
    // Only the cover and pages about the logo can hold logos; other images are not decoded or kept.
    const logoCandidatePage = logoPage(pageNo);

    let ctm: Matrix = [1, 0, 0, 1, 0, 0];
    let fill: string | null = '#000000';
    const stack: { ctm: Matrix; fill: string | null }[] = [];
    const pending: { id: string; share: number }[] = [];
    for (let i = 0; i < ops.fnArray.length; i++) {
      const fn = ops.fnArray[i];
      const args = ops.argsArray[i] as unknown[] | null;
      switch (fn) {
        case OPS.save:
          stack.push({ ctm, fill });
          break;
        case OPS.restore: {
          const top = stack.pop();
          if (top) ({ ctm, fill } = top);
          break;
        }
        case OPS.transform:
          ctm = multiply(args as unknown as Matrix, ctm);
          break;
        case OPS.paintFormXObjectBegin: {
          stack.push({ ctm, fill });
          const m = args?.[0] as number[] | undefined;
          if (m && m.length === 6) ctm = multiply(m as Matrix, ctm);
          break;
        }
        case OPS.paintFormXObjectEnd: {
          const top = stack.pop();
          if (top) ({ ctm, fill } = top);
          break;
        }
        case OPS.setFillRGBColor:
          fill = typeof args?.[0] === 'string' ? (args[0] as string).toUpperCase() : null;
          break;
        case OPS.setFillColorN:
        case OPS.setFillTransparent:
          fill = null;
          break;
        case OPS.setFont: {
          const id = args?.[0];
          if (typeof id === 'string' && page.commonObjs.has(id)) {
            const font = page.commonObjs.get(id) as { name?: string } | null;
            if (font?.name) fontNames.set(id, font.name);
          }
          break;
        }
        case OPS.constructPath: {
          const paint = args?.[0];
          const isFill =
            paint === OPS.fill ||
            paint === OPS.eoFill ||
            paint === OPS.fillStroke ||
            paint === OPS.eoFillStroke ||
            paint === OPS.closeFillStroke ||
            paint === OPS.closeEOFillStroke;
          const path = (args?.[1] as ArrayLike<number>[] | undefined)?.[0];
          const box = args?.[2] as ArrayLike<number> | null | undefined;
          if (!isFill || !fill || !path || !box || box.length < 4) break;
          if (segmentCount(path) > 12) break;
          const w = (box[2]! - box[0]!) * Math.hypot(ctm[0], ctm[1]);
          const h = (box[3]! - box[1]!) * Math.hypot(ctm[2], ctm[3]);
          if (w > 0 && h > 0 && (w * h) / pageArea < 0.5)
            shapes.push({ hex: fill, page: pageNo, width: w, height: h });
          break;
        }
        case OPS.paintImageXObject: {
          const id = args?.[0];
          if (typeof id !== 'string') break;
          imagesSeen++;
          const share = (Math.hypot(ctm[0], ctm[1]) * Math.hypot(ctm[2], ctm[3])) / pageArea;
          if (!logoCandidatePage) break;
          if (!seenImages.has(id) && pending.length + images.length < MAX_IMAGES) {
            seenImages.add(id);
            pending.push({ id, share });
          }
          break;
        }
      }
    }

    // Image data can arrive just after the operator list; wait for all of a page's images together.
    const decoded = await Promise.all(
      pending.map(({ id }) => {
        const objs = id.startsWith('g_') ? page.commonObjs : page.objs;
        return objectOnce<PdfImageData>(objs as never, id);
      }),
    );
    decoded.forEach((img, i) => {
      if (!img || img.width < MIN_IMAGE_SIDE || img.height < MIN_IMAGE_SIDE) return;
      if (img.width * img.height > MAX_IMAGE_PIXELS) return;
      if (keptPixels + img.width * img.height > MAX_KEPT_PIXELS) return;
      keptPixels += img.width * img.height;
      const rgba = toRgba(img);
      if (rgba)
        images.push({
          page: pageNo,
          width: img.width,
          height: img.height,
          rgba,
          name: null,
          pageShare: pending[i]!.share,
        });
    });

    page.cleanup();
  }
  // Nothing to draft from (blank pages): refused as an empty DOCX is, not answered as an empty draft.
  if (lines.length === 0 && imagesSeen === 0 && shapes.length === 0)
    throw new DocumentError('invalid', 'The PDF has no text, images or colours to read.');

  const fontUse = applyTypefaces(pageItems, fontNames, lines, lineFonts);
  assignHeadingLevels(lines);
  return {
    format: 'pdf',
    pages: pdf.numPages,
    title,
    lines,
    links,
    fontUse,
    shapes,
    printedColors: printed,
    swatchPages: colourPages,
    themeColors: [],
    themeFonts: { headings: null, body: null },
    images,
    imagesSeen,
  };
}

// Some PDFs position single glyphs apart, and pdf.js then reads "b ased on the O utfit f ont".
const SPLIT_LOWER = /(?<=^|[\s(“"‘])([bcdfghjklmnpqrstvwxz]) (?=\p{Ll}{2,})/gu;
const SPLIT_UPPER = /(?<=^|[\s(“"‘])([B-HJ-Z]) (?=\p{Ll}{2,})/gu;
// "b e", "b y": a consonant split from the one vowel that ends its word (a lone consonant is no word).
// Not before "a", a word of its own after a unit or a variable ("200 g a day").
const SPLIT_SHORT = /(?<=^|[\s(“"‘])([bcdfghjklmnpqrstvwxz]) (?=[eiouy](?![\p{L}\p{N}]))/gu;

/**
 * Rejoins split words; capitals, and consonants split from a last vowel, only when lower-case splits
 * show the document has the problem (three of them, anywhere in it).
 */
function repairSplitWords(lines: TextLine[]): void {
  const lowerSplits = lines.map((line) => line.text.match(SPLIT_LOWER)?.length ?? 0);
  const splits = lowerSplits.reduce((sum, n) => sum + n, 0);
  lines.forEach((line, i) => {
    if (lowerSplits[i]) line.text = line.text.replace(SPLIT_LOWER, '$1');
    if (splits >= 3) line.text = line.text.replace(SPLIT_UPPER, '$1').replace(SPLIT_SHORT, '$1');
  });
}

const TYPE_PAGE_WORDS = /typo|typeface|fonts?\b|schrift/i;

interface DrawingPlan {
  pageNo: number;
  /** Read whatever the time (the first MAX_ESSENTIAL_PAGES of them), not within the optional pages' budget. */
  essential: boolean;
  rank: number;
}

/**
 * Which pages' drawing operators to read, most useful first: the cover and logo pages (images), colour
 * pages (`swatchPages`, which counts every page of a document without text: outlined art), essential
 * while swatches are read, then pages without text, type pages (embedded fonts) and the rest.
 */
function drawingPlan(texts: string[], colourPages: Set<number>, readsSwatches: boolean): DrawingPlan[] {
  return texts
    .map((text, i): DrawingPlan => {
      const pageNo = i + 1;
      if (pageNo === 1) return { pageNo, essential: true, rank: 0 };
      if (isMisusePage(text)) return { pageNo, essential: false, rank: 6 };
      if (LOGO_PAGE_WORDS.test(text)) return { pageNo, essential: true, rank: 1 };
      if (colourPages.has(pageNo)) return { pageNo, essential: readsSwatches, rank: 2 };
      if (!text.trim()) return { pageNo, essential: false, rank: 3 };
      if (TYPE_PAGE_WORDS.test(text)) return { pageNo, essential: false, rank: 4 };
      return { pageNo, essential: false, rank: 5 };
    })
    .sort((a, b) => a.rank - b.rank || a.pageNo - b.pageNo);
}

/** Joins pdf.js text runs into visual lines, keeping size and position; `fonts` gets each line's first font id. */
function appendLines(items: TextItemLike[], page: number, out: TextLine[], fonts: string[]): void {
  let current: (TextLine & { end: number; fontName: string }) | null = null;
  const flush = () => {
    if (current) {
      const text = current.text.replace(/\s+/g, ' ').trim();
      const { size, font, bold, level, x, y } = current;
      if (text) {
        out.push({ text, page, size, font, bold, level, x, y });
        fonts.push(current.fontName);
      }
    }
    current = null;
  };
  for (const item of items) {
    if (typeof item.str !== 'string') continue;
    const [, , c = 0, d = 0, x = 0, y = 0] = item.transform;
    const size = Math.round(Math.hypot(c, d) * 10) / 10;
    if (item.str.trim()) {
      const line = current as (TextLine & { end: number }) | null;
      const sameLine =
        line !== null &&
        Math.abs(line.y - y) < Math.max(1, 0.5 * size) &&
        Math.abs(line.size - size) <= 0.2 * Math.max(size, 1) &&
        x > line.x - 0.5 * size &&
        x - line.end < 3 * Math.max(size, 1);
      if (line && sameLine) {
        const gap = x - line.end;
        line.text += gap > 0.15 * size ? ` ${item.str}` : item.str;
        line.end = Math.max(line.end, x + item.width);
      } else {
        flush();
        current = {
          text: item.str,
          page,
          size,
          font: null,
          bold: false,
          level: 0,
          x,
          y,
          end: x + item.width,
          fontName: item.fontName,
        };
      }
    }
    // A run pdf.js gives no width ends no line: some design tools' exports set a paragraph's first
    // glyph apart, which pdf.js reads as a zero-width run marked end-of-line ("I" | "t should…"): the
    // lone letter became a line (a heading, by its size) and the rest "tshould", repaired as a split
    // word. The next run decides, as for any run, whether the line goes on.
    if (item.hasEOL && !(item.width === 0 && item.str.trim())) flush();
  }
  flush();
}

/** Gives each line the typeface of its first run and counts the characters set in each family. */
function applyTypefaces(
  pageItems: TextItemLike[][],
  fontNames: Map<string, string>,
  lines: TextLine[],
  lineFonts: string[],
): Map<string, number> {
  // Resolved once per font rather than per text run.
  const faces = new Map<string, { family: string | null; bold: boolean }>();
  const faceOf = (fontName: string) => {
    let face = faces.get(fontName);
    if (!face) {
      const raw = fontNames.get(fontName);
      face = { family: raw ? familyFromFontName(raw) : null, bold: raw ? isBoldFontName(raw) : false };
      faces.set(fontName, face);
    }
    return face;
  };
  const fontUse = new Map<string, number>();
  for (const items of pageItems) {
    for (const item of items) {
      if (typeof item.str !== 'string' || !item.str.trim()) continue;
      const { family } = faceOf(item.fontName);
      if (family) fontUse.set(family, (fontUse.get(family) ?? 0) + item.str.length);
    }
  }
  lines.forEach((line, i) => {
    const { family, bold } = faceOf(lineFonts[i]!);
    line.font = family;
    line.bold = bold;
  });
  return fontUse;
}
