import type { ColorMention } from './colors.ts';

/** Draft fields as in the spec's "Brand kit draft"; logo URLs/keys are added by the caller after storing logos. */
export interface BrandKitDraft {
  name: string | null;
  brand_voice: string | null;
  target_audience: string | null;
  logo_wordmark: string | null;
  logo_wordmark_font: string | null;
  primary_color: string | null;
  secondary_color: string | null;
  accent_color: string | null;
  font_headings: string | null;
  font_body: string | null;
  imagery_style: string | null;
  tagline: string | null;
  mission_statement: string | null;
  industry: string | null;
  location: string | null;
  website_url: string | null;
  tone_keywords: string[];
  competitors: string[];
  seo_keywords: string[];
  content_pillars: string[];
  color_palette: string[] | null;
  social_links: Record<string, string> | null;
  social_profiles: Record<string, string> | null;
  logo_fields_authoritative: boolean;
}

export type LogoRole = 'logo' | 'icon' | 'dark' | 'square';

export interface ExtractedLogo {
  role: LogoRole;
  png: Uint8Array;
  width: number;
  height: number;
  /** The document itself presents the image as a logo (logo page or logo name). */
  labelled: boolean;
}

export interface ExtractionStats {
  format: 'pdf' | 'docx';
  pages: number;
  text_chars: number;
  images_seen: number;
  /** Every typeface the document names or embeds, most relevant first (the draft only has two slots). */
  fonts: string[];
  /** Where the palette came from: printed values, painted swatches/theme, or nothing. */
  palette_source: 'printed' | 'swatches' | 'none';
  ms: number;
}

export interface BrandKitExtraction {
  draft: BrandKitDraft;
  logos: ExtractedLogo[];
  stats: ExtractionStats;
}

export type DocumentErrorKind = 'unsupported' | 'invalid' | 'too_large' | 'timeout';

export class DocumentError extends Error {
  readonly kind: DocumentErrorKind;
  constructor(kind: DocumentErrorKind, message: string) {
    super(message);
    this.name = 'DocumentError';
    this.kind = kind;
  }
}

export const NOT_A_DOCUMENT = 'The file is neither a PDF nor a Word (DOCX) document.';

/** A DOCX whose zip does not open: found by the sniff before reading, or by the unzip itself. */
export const DOCX_UNPACK_FAILED = 'The DOCX file is corrupt and cannot be unpacked.';

/** A PDF's header: it may follow a little junk; readers accept it within the first kilobyte. */
export function isPdf(bytes: Uint8Array): boolean {
  return new TextDecoder('latin1').decode(bytes.subarray(0, 1024)).includes('%PDF-');
}

/** A zip's signature (a local file header, "PK\x03\x04"): a DOCX is a zip. */
export const isZip = (bytes: Uint8Array): boolean =>
  bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

/** Refuses, before any parser (or worker) starts, what can be no document: nothing, or neither a PDF's
 * header nor a zip's (which zips are Word's takes the unzipper, in the reader). */
export function refuseNonDocument(bytes: Uint8Array): void {
  if (bytes.length === 0) throw new DocumentError('invalid', 'The file is empty.');
  if (!isZip(bytes) && !isPdf(bytes)) throw new DocumentError('unsupported', NOT_A_DOCUMENT);
}

/** One visual line of text, in the document's reading order. */
export interface TextLine {
  text: string;
  page: number;
  size: number;
  /** Typeface family of the line's first run, when known. */
  font: string | null;
  bold: boolean;
  /** 0 = body text; 1 = most important heading level, larger numbers = minor headings. */
  level: number;
  x: number;
  y: number;
}

/** A simple filled shape (rectangle, circle) painted in one colour: a candidate colour swatch. */
export interface PaintedShape {
  hex: string;
  page: number;
  width: number;
  height: number;
}

export interface RawImage {
  page: number;
  width: number;
  height: number;
  /** RGBA, 8 bits per channel. */
  rgba: Uint8Array;
  /** Name the document gives the image (DOCX drawing name/description), if any. */
  name: string | null;
  /** Drawn size as a share of the page area (0..1), when known. */
  pageShare: number | null;
}

/** What the PDF and DOCX readers hand to the format-independent rules. */
export interface DocumentModel {
  format: 'pdf' | 'docx';
  pages: number;
  title: string | null;
  lines: TextLine[];
  links: string[];
  /** Embedded/used typeface family → characters set in it. */
  fontUse: Map<string, number>;
  shapes: PaintedShape[];
  /** Colour values the text prints (`printedColors`); read once, by the reader, which needs them too. */
  printedColors: ColorMention[];
  /** The colour pages (`swatchPages`), likewise read once. */
  swatchPages: Set<number>;
  /** Colours a DOCX theme defines (accent1.., dk2, lt2), when not Office defaults. */
  themeColors: string[];
  /** Theme major (headings) / minor (body) fonts. */
  themeFonts: { headings: string | null; body: string | null };
  images: RawImage[];
  /** Images painted on the pages read for drawing (a PDF's pages that can change the draft; a DOCX's media). */
  imagesSeen: number;
}

/**
 * When reading must end. A timer cannot stop synchronous work (the DOCX reader, drafting from the
 * text), which holds the thread until it returns, so that work looks at the clock itself: between its
 * steps and inside the loops whose length the document decides.
 */
export interface Deadline {
  at: number;
  ms: number;
}

export const timedOut = (ms: number) =>
  new DocumentError('timeout', `Reading the document took longer than ${ms} ms.`);

export function checkDeadline(deadline: Deadline): void {
  if (Date.now() > deadline.at) throw timedOut(deadline.ms);
}

/** Set when the caller's deadline passed; readers stop and release what they hold. */
export interface CancelSignal {
  cancelled: boolean;
  onCancel?: () => void;
}
