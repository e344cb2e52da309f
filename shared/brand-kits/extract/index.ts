import { EXTRACT_MS } from '../extract-time.ts';
import { findPalette } from './colors.ts';
import { readDocx, sniffDocx } from './docx.ts';
import { findFonts, wordmarkFont } from './fonts.ts';
import { withoutRunningLines } from './layout.ts';
import { pickLogos } from './logos.ts';
import { loadPdfJs, readPdf } from './pdf.ts';
import {
  type BrandKitDraft,
  type BrandKitExtraction,
  type CancelSignal,
  checkDeadline,
  type Deadline,
  DOCX_UNPACK_FAILED,
  DocumentError,
  type DocumentModel,
  isPdf,
  NOT_A_DOCUMENT,
  refuseNonDocument,
  timedOut,
} from './types.ts';
import { documentText, findLinks, findWords, labelledSections, labelledWebsite } from './words.ts';

export type { BrandKitExtraction } from './types.ts';
export { DocumentError } from './types.ts';

async function readDocument(bytes: Uint8Array, pdf: boolean, deadline: Deadline, signal: CancelSignal) {
  refuseNonDocument(bytes);
  const zip = pdf ? 'other' : sniffDocx(bytes);
  if (!pdf && zip === 'other') throw new DocumentError('unsupported', NOT_A_DOCUMENT);
  if (zip === 'corrupt') throw new DocumentError('invalid', DOCX_UNPACK_FAILED);
  try {
    return pdf ? await readPdf(bytes, deadline, signal) : readDocx(bytes, deadline);
  } catch (error) {
    if (error instanceof DocumentError) throw error;
    // Anything the parsers trip over is a broken document, not a server fault.
    throw new DocumentError('invalid', `The ${pdf ? 'PDF' : 'DOCX'} file is corrupt and cannot be read.`);
  }
}

function buildDraft(
  doc: DocumentModel,
  deadline: Deadline,
): Omit<BrandKitExtraction, 'stats'> & { fonts: string[]; paletteSource: 'printed' | 'swatches' | 'none' } {
  // Each step takes time in proportion to the text at most; the clock is read between them.
  const content = withoutRunningLines(doc.lines, doc.pages);
  checkDeadline(deadline);
  const text = documentText(content);
  checkDeadline(deadline);
  const fonts = findFonts(doc, deadline);
  checkDeadline(deadline);
  const labelled = labelledSections(content);
  const links = findLinks(doc, text, fonts.all, labelledWebsite(labelled));
  checkDeadline(deadline);
  const words = findWords(doc, content, text, links.website, labelled);
  checkDeadline(deadline);
  const palette = findPalette(doc);
  checkDeadline(deadline);
  const logos = pickLogos(doc);
  const draft: BrandKitDraft = {
    name: words.name,
    brand_voice: words.brand_voice,
    target_audience: words.target_audience,
    logo_wordmark: words.wordmark_mentioned ? words.name : null,
    logo_wordmark_font: wordmarkFont(fonts.all, text),
    primary_color: palette.primary,
    secondary_color: palette.secondary,
    accent_color: palette.accent,
    font_headings: fonts.headings,
    font_body: fonts.body,
    imagery_style: words.imagery_style,
    tagline: words.tagline,
    mission_statement: words.mission_statement,
    industry: words.industry,
    location: words.location,
    website_url: links.website,
    tone_keywords: words.tone_keywords,
    competitors: words.competitors,
    seo_keywords: words.seo_keywords,
    content_pillars: words.content_pillars,
    color_palette: palette.palette.length > 0 ? palette.palette : null,
    social_links: links.socialLinks,
    social_profiles: links.socialProfiles,
    logo_fields_authoritative: logos.some((logo) => logo.labelled),
  };
  return { draft, logos, fonts: fonts.all, paletteSource: palette.source };
}

/**
 * Reads a brand-guidelines PDF or DOCX and drafts a brand kit from what the document states.
 * Throws DocumentError: 'unsupported' (not PDF/DOCX), 'invalid' (encrypted, corrupt, empty),
 * 'too_large' (DOCX zip bomb) or 'timeout'. `onStart` is told when the deadline starts (the parser loaded).
 * In the service it runs in a worker process (worker.ts), which makes the deadline and memory hard limits.
 */
export async function extractBrandKit(
  bytes: Uint8Array,
  opts: { timeoutMs?: number; onStart?: () => void } = {},
): Promise<BrandKitExtraction> {
  const started = performance.now();
  // The parser is loaded before the deadline starts: the deadline is the document's, and loading
  // pdf.js (0.4–0.5 s, once per process) is the function's cold start. Outside readDocument's catch: a
  // parser that fails to load is a broken deployment (a 500), not a corrupt document.
  const pdf = isPdf(bytes);
  if (pdf) await loadPdfJs();
  const timeoutMs = opts.timeoutMs ?? EXTRACT_MS;
  const deadline: Deadline = { at: Date.now() + timeoutMs, ms: timeoutMs };
  opts.onStart?.();
  const signal: CancelSignal = { cancelled: false };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      signal.cancelled = true;
      signal.onCancel?.();
      reject(timedOut(timeoutMs));
    }, timeoutMs);
  });
  try {
    const work = (async () => {
      const doc = await readDocument(bytes, pdf, deadline, signal);
      if (signal.cancelled) throw timedOut(timeoutMs);
      const built = buildDraft(doc, deadline);
      return { doc, built };
    })();
    // Keep a late failure of the abandoned work from surfacing as an unhandled rejection.
    work.catch(() => undefined);
    const { doc, built } = await Promise.race([work, timeout]);
    return {
      draft: built.draft,
      logos: built.logos,
      stats: {
        format: doc.format,
        pages: doc.pages,
        text_chars: doc.lines.reduce((n, l) => n + l.text.length, 0),
        images_seen: doc.imagesSeen,
        fonts: built.fonts,
        palette_source: built.paletteSource,
        ms: Math.round(performance.now() - started),
      },
    };
  } finally {
    clearTimeout(timer);
  }
}
