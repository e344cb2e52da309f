import { encode } from 'fast-png';
import type { DocumentModel, ExtractedLogo, LogoRole, RawImage } from './types.ts';

const MAX_LOGOS = 4;
/** Logos are shown small in the app; larger images only cost encoding time and storage. */
const MAX_LOGO_SIDE = 800;
/** Longer than this times its other side, an image is a rule or a strip, not a mark (and shrunk to at
 * most MAX_LOGO_SIDE, 13,000 × 16 pixels had no row left: a 500). */
const MAX_LOGO_ASPECT = 25;
const LOGO_WORDS =
  /\b(logos?|logotypes?|logomarks?|wordmarks?|brand ?marks?|icons?|symbols?|emblems?|signets?|marks?|bildmarke|wortmarke)\b/i;
const ICON_WORDS = /\b(icons?|symbols?|marks?|favicons?|avatars?|app icons?|emblems?|signets?|bildmarke)\b/i;
/** Misuse examples show distorted logos. */
const MISUSE_WORDS = /\b(don['’]?t|do not|never|avoid|incorrect|misuse|wrong)\b/gi;
const DARK_WORDS = /\b(dark|reversed?|negative|inverse|inverted|knock-?out|white|on black)\b/i;

interface Candidate {
  image: RawImage;
  labelled: boolean;
  role: LogoRole;
  score: number;
}

/** Share of opaque pixels and their mean luminance, sampled to stay cheap on large images. */
function tone(image: RawImage): { opaque: number; luminance: number } {
  const { rgba, width, height } = image;
  const pixels = width * height;
  const step = Math.max(1, Math.floor(pixels / 20_000));
  let opaque = 0;
  let sampled = 0;
  let luminance = 0;
  for (let p = 0; p < pixels; p += step) {
    const i = p * 4;
    sampled++;
    if (rgba[i + 3]! < 128) continue;
    opaque++;
    luminance += 0.2126 * rgba[i]! + 0.7152 * rgba[i + 1]! + 0.0722 * rgba[i + 2]!;
  }
  return { opaque: opaque / Math.max(1, sampled), luminance: opaque ? luminance / opaque : 0 };
}

/** Box-filter downscale by a whole factor, averaging colour weighted by alpha. */
function shrink(image: RawImage): RawImage {
  const factor = Math.ceil(Math.max(image.width, image.height) / MAX_LOGO_SIDE);
  if (factor <= 1) return image;
  // Whole boxes only, so each side keeps at least a box: a candidate is at most MAX_LOGO_ASPECT to 1,
  // so its short side keeps about MAX_LOGO_SIDE / MAX_LOGO_ASPECT (32) pixels or more.
  const width = Math.floor(image.width / factor);
  const height = Math.floor(image.height / factor);
  const out = new Uint8Array(width * height * 4);
  const src = image.rgba;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let dy = 0; dy < factor; dy++) {
        let i = ((y * factor + dy) * image.width + x * factor) * 4;
        for (let dx = 0; dx < factor; dx++, i += 4) {
          const alpha = src[i + 3]!;
          r += src[i]! * alpha;
          g += src[i + 1]! * alpha;
          b += src[i + 2]! * alpha;
          a += alpha;
        }
      }
      const o = (y * width + x) * 4;
      if (a > 0) {
        out[o] = Math.round(r / a);
        out[o + 1] = Math.round(g / a);
        out[o + 2] = Math.round(b / a);
      }
      out[o + 3] = Math.round(a / (factor * factor));
    }
  }
  return { ...image, width, height, rgba: out };
}

export function pickLogos(doc: DocumentModel): ExtractedLogo[] {
  const pageText = new Map<number, string>();
  for (const line of doc.lines) pageText.set(line.page, `${pageText.get(line.page) ?? ''} ${line.text}`);
  const misusePages = new Set(
    [...pageText].filter(([, text]) => (text.match(MISUSE_WORDS) ?? []).length >= 2).map(([page]) => page),
  );
  const logoPages = new Set(
    doc.lines
      .filter((l) => LOGO_WORDS.test(l.text) && l.text.split(/\s+/).length <= 8 && !misusePages.has(l.page))
      .map((l) => l.page),
  );
  const candidates: Candidate[] = [];
  for (const image of doc.images) {
    // Full-page pictures are photography or backgrounds, not marks.
    if (image.pageShare !== null && image.pageShare > 0.6) continue;
    const context = `${image.name ?? ''} ${doc.format === 'pdf' ? (pageText.get(image.page) ?? '') : ''}`;
    const named = image.name !== null && LOGO_WORDS.test(image.name);
    const labelled = named || (doc.format === 'pdf' && logoPages.has(image.page));
    const onCover = image.page === 1;
    if (!labelled && !onCover) continue;
    const aspect = image.width / image.height;
    if (aspect > MAX_LOGO_ASPECT || aspect < 1 / MAX_LOGO_ASPECT) continue;
    const { opaque, luminance } = tone(image);
    const nearSquare = aspect > 0.8 && aspect < 1.25;
    let role: LogoRole = 'logo';
    if (
      (image.name && DARK_WORDS.test(image.name)) ||
      (opaque < 0.9 && luminance > 215 && DARK_WORDS.test(context))
    )
      role = 'dark';
    else if (nearSquare && ICON_WORDS.test(image.name ?? context)) role = 'icon';
    else if (nearSquare) role = 'square';
    const score = (labelled ? 10 : 0) + (named ? 5 : 0) + (opaque < 1 ? 2 : 0) - image.page * 0.01;
    candidates.push({ image, labelled, role, score });
  }
  candidates.sort((a, b) => b.score - a.score);
  const chosen = new Map<LogoRole, Candidate>();
  for (const candidate of candidates) if (!chosen.has(candidate.role)) chosen.set(candidate.role, candidate);
  // Without a wide mark, the best square image is the logo the document shows.
  if (!chosen.has('logo')) {
    const fallback = chosen.get('square') ?? chosen.get('icon');
    if (fallback) {
      chosen.delete(fallback.role);
      chosen.set('logo', { ...fallback, role: 'logo' });
    }
  }
  return [...chosen.values()].slice(0, MAX_LOGOS).map(({ image: original, labelled, role }) => {
    const image = shrink(original);
    return {
      role,
      labelled,
      width: image.width,
      height: image.height,
      // Fast deflate: logos are small and encoding time matters more than a few kilobytes.
      png: encode(
        { width: image.width, height: image.height, data: image.rgba, channels: 4, depth: 8 },
        { zlib: { level: 3 } },
      ),
    };
  });
}
