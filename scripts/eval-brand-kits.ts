/**
 * Scores the brand-kit extractor against hand-made truth files.
 * Usage: tsx scripts/eval-brand-kits.ts <folder> [--verbose]
 * Every <name>.pdf / <name>.docx with a matching <name>.truth.json is scored.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { extractBrandKit } from '#shared/brand-kits/extract/index';

interface Truth {
  name: string | null;
  tagline: string | null;
  website_url: string | null;
  colors: { primary: string[]; all: string[]; swatch_fill_values_not_printed?: Record<string, string> };
  fonts: { all: string[] };
  social_links: Record<string, string>;
}

type Score = number | null;

const folder = process.argv[2];
const verbose = process.argv.includes('--verbose');
if (!folder) {
  console.error('usage: tsx scripts/eval-brand-kits.ts <folder> [--verbose]');
  process.exit(2);
}

const text = (s: string | null | undefined) =>
  (s ?? '')
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .trim();
const url = (s: string | null | undefined) =>
  (s ?? '')
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/+$/, '');

/** Share of `wanted` found in `got`; null when there is nothing to find. */
function recall(wanted: string[], got: string[]): Score {
  if (wanted.length === 0) return null;
  return wanted.filter((w) => got.includes(w)).length / wanted.length;
}
/** Share of `got` that is right; an answer where the truth is empty scores 0. */
function precision(wanted: string[], got: string[]): Score {
  if (got.length === 0) return null;
  return got.filter((g) => wanted.includes(g)).length / got.length;
}
/** Exact-ish match; when the truth is null, saying nothing is right. */
function same(wanted: string | null, got: string | null, norm: (s: string | null) => string): Score {
  if (!wanted) return got ? 0 : 1;
  return norm(wanted) === norm(got) ? 1 : 0;
}

const columns = [
  'pal_rec',
  'pal_prec',
  'primary',
  'fonts_rec',
  'fonts_draft',
  'name',
  'tagline',
  'website',
  'social_rec',
  'social_prec',
  'ms',
] as const;
type Row = Record<(typeof columns)[number], Score>;

const docs = readdirSync(folder)
  .filter((f) => /\.(pdf|docx)$/i.test(f))
  .filter((f) => readdirSync(folder).includes(`${basename(f, extname(f))}.truth.json`))
  .sort();

const rows: [string, Row, string][] = [];
for (const file of docs) {
  const truth = JSON.parse(
    readFileSync(join(folder, `${basename(file, extname(file))}.truth.json`), 'utf8'),
  ) as Truth;
  const bytes = new Uint8Array(readFileSync(join(folder, file)));
  const started = performance.now();
  let result: Awaited<ReturnType<typeof extractBrandKit>>;
  try {
    result = await extractBrandKit(bytes);
  } catch (error) {
    console.log(`${file}: FAILED ${(error as Error).message}`);
    continue;
  }
  const ms = performance.now() - started;
  const { draft, stats } = result;
  const palette = draft.color_palette ?? [];
  const truthAll = truth.colors.all.map((c) => c.toUpperCase());
  const primaryPool = truth.colors.primary.length ? truth.colors.primary : truth.colors.all;
  const fontKey = (f: string) => f.toLowerCase().replace(/[^a-z0-9]/g, '');
  const truthFonts = truth.fonts.all.map(fontKey);
  const truthSocial = Object.entries(truth.social_links ?? {}).map(([k, v]) => `${k}=${url(v)}`);
  const gotSocial = Object.entries(draft.social_links ?? {}).map(([k, v]) => `${k}=${url(v)}`);
  const row: Row = {
    pal_rec: recall(truthAll, palette),
    pal_prec: truthAll.length === 0 ? (palette.length ? 0 : null) : precision(truthAll, palette),
    primary: primaryPool.length
      ? primaryPool.map((c) => c.toUpperCase()).includes(draft.primary_color ?? '')
        ? 1
        : 0
      : draft.primary_color
        ? 0
        : 1,
    fonts_rec: recall(truthFonts, stats.fonts.map(fontKey)),
    fonts_draft: recall(
      truthFonts,
      [draft.font_headings, draft.font_body].filter((f): f is string => !!f).map(fontKey),
    ),
    name: same(truth.name, draft.name, (s) => text(s).replace(/\s+/g, '')),
    tagline: same(truth.tagline, draft.tagline, text),
    website: same(truth.website_url, draft.website_url, url),
    social_rec: recall(truthSocial, gotSocial),
    social_prec: truthSocial.length === 0 ? (gotSocial.length ? 0 : null) : precision(truthSocial, gotSocial),
    ms: Math.round(ms),
  };
  let note = '';
  const swatches = truth.colors.swatch_fill_values_not_printed;
  if (swatches) {
    const painted = Object.entries(swatches)
      .filter(([label]) => label !== 'page background')
      .map(([, hex]) => hex.toUpperCase());
    note = `unprinted swatch fills found ${painted.filter((h) => palette.includes(h)).length}/${painted.length}`;
  }
  rows.push([basename(file, extname(file)), row, note]);
  if (verbose)
    console.log(
      file,
      JSON.stringify(
        { draft, stats, logos: result.logos.map((l) => ({ ...l, png: l.png.length })) },
        null,
        1,
      ),
    );
}

const fmt = (v: Score, key: string) => (v === null ? 'n/a' : key === 'ms' ? String(v) : v.toFixed(2));
const width = Math.max(8, ...rows.map(([name]) => name.length));
console.log(['document'.padEnd(width), ...columns.map((c) => c.padStart(11))].join(' '));
for (const [name, row, note] of rows) {
  console.log(
    [name.padEnd(width), ...columns.map((c) => fmt(row[c], c).padStart(11))].join(' ') +
      (note ? `  (${note})` : ''),
  );
}
const mean = (key: (typeof columns)[number]) => {
  const values = rows.map(([, row]) => row[key]).filter((v): v is number => v !== null);
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
};
console.log(
  [
    'overall'.padEnd(width),
    ...columns.map((c) => (c === 'ms' ? fmt(Math.round(mean(c) ?? 0), c) : fmt(mean(c), c)).padStart(11)),
  ].join(' '),
);
console.log(
  '(n/a = nothing to score: truth and answer both empty; "overall" averages the scored documents; ms = mean)',
);
