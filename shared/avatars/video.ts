// What a video is, by its first bytes rather than its name or declared type: an ISO base media file
// (MP4, QuickTime) opens with an `ftyp` box naming its brand; WebM opens with an EBML header whose
// DocType is "webm".
export interface VideoFormat {
  ext: 'mp4' | 'mov' | 'webm';
  contentType: 'video/mp4' | 'video/quicktime' | 'video/webm';
}

const MP4: VideoFormat = { ext: 'mp4', contentType: 'video/mp4' };
const QUICKTIME: VideoFormat = { ext: 'mov', contentType: 'video/quicktime' };
const WEBM: VideoFormat = { ext: 'webm', contentType: 'video/webm' };

/** Major brands of video MP4 files (ISO 14496-12/-14, Apple M4V, Flash F4V, DASH segments).
 * Audio-only (`M4A `), image (`heic`, `avif`) and 3GPP brands are not videos we train on. */
const MP4_BRANDS = new Set([
  'isom',
  'iso2',
  'iso3',
  'iso4',
  'iso5',
  'iso6',
  'mp41',
  'mp42',
  'mp71',
  'avc1',
  'dash',
  'M4V ',
  'M4VH',
  'M4VP',
  'MSNV',
  'NDAS',
  'F4V ',
  'mmp4',
]);
const QUICKTIME_BRAND = 'qt  ';

const EBML_MAGIC = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);
const DOCTYPE_ID = Buffer.from([0x42, 0x82]);

/** The EBML header's DocType value: element 0x4282, a variable-length size, then the text. */
const docType = (head: Buffer): string | undefined => {
  const at = head.indexOf(DOCTYPE_ID, 4);
  const sizeByte = head[at + 2];
  if (at < 0 || sizeByte === undefined || sizeByte === 0) return undefined;
  const sizeLength = Math.clz32(sizeByte) - 23; // leading zero bits of the byte, plus one
  let size = sizeByte & (0xff >> sizeLength);
  for (let i = 1; i < sizeLength; i++) size = size * 256 + (head[at + 2 + i] ?? 0);
  const start = at + 2 + sizeLength;
  return size > 0 && size <= 16 ? head.toString('latin1', start, start + size) : undefined;
};

/** How many leading bytes `sniffVideo` needs. */
export const SNIFF_BYTES = 64;

export function sniffVideo(bytes: Uint8Array): VideoFormat | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, SNIFF_BYTES));
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp') {
    const brand = head.toString('latin1', 8, 12);
    if (brand === QUICKTIME_BRAND) return QUICKTIME;
    if (MP4_BRANDS.has(brand)) return MP4;
    return undefined;
  }
  if (head.subarray(0, 4).equals(EBML_MAGIC) && docType(head) === 'webm') return WEBM;
  return undefined;
}
