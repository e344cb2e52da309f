// Hand-drawn SVG charts (no dependency): horizontal bars with a budget line, and lines over a log
// x axis. Plain text, so a chart in docs/ diffs like code and renders on GitHub.

const FONT = 'font-family="system-ui, sans-serif" font-size="12"';
const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (n: number) =>
  Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);

export interface Bar {
  label: string;
  value: number;
  /** Held to the budget line (others are drawn grey, for context). */
  budgeted?: boolean;
}

export function barChart(options: {
  title: string;
  unit: string;
  bars: Bar[];
  budget?: number;
  budgetLabel?: string;
}): string {
  const { bars, budget } = options;
  const labelWidth = 260;
  const plotWidth = 420;
  const row = 18;
  const top = 40;
  const height = top + bars.length * row + 36;
  const max = Math.max(...bars.map((b) => b.value), budget ?? 0) * 1.1 || 1;
  const x = (v: number) => labelWidth + (v / max) * plotWidth;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + plotWidth + 80}" height="${height}" ${FONT}>`,
    `<title>${xml(options.title)}</title>`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="20" font-size="14" font-weight="bold">${xml(options.title)}</text>`,
  ];
  bars.forEach((bar, i) => {
    const y = top + i * row;
    const over = budget !== undefined && bar.budgeted && bar.value > budget;
    const fill = !bar.budgeted ? '#9aa5b1' : over ? '#d64545' : '#3f7dd1';
    parts.push(
      `<text x="${labelWidth - 6}" y="${y + 12}" text-anchor="end">${xml(bar.label)}</text>`,
      `<rect x="${labelWidth}" y="${y + 2}" width="${Math.max(1, x(bar.value) - labelWidth)}" height="${row - 5}" fill="${fill}"/>`,
      `<text x="${x(bar.value) + 4}" y="${y + 12}">${fmt(bar.value)} ${xml(options.unit)}</text>`,
    );
  });
  if (budget !== undefined)
    parts.push(
      `<line x1="${x(budget)}" y1="${top - 4}" x2="${x(budget)}" y2="${top + bars.length * row}" stroke="#d64545" stroke-dasharray="4 3"/>`,
      `<text x="${x(budget)}" y="${top - 8}" text-anchor="middle" fill="#d64545">${xml(options.budgetLabel ?? `budget ${fmt(budget)}`)}</text>`,
    );
  parts.push(
    `<text x="10" y="${height - 10}" fill="#555">blue: held to the budget · grey: context only (functions that read S3, PDF, secrets…)</text>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}

export interface Series {
  label: string;
  points: { x: number; y: number }[];
}

const COLORS = ['#3f7dd1', '#e07b39', '#3aa56b', '#9b59b6', '#c0392b', '#16a2b8'];

/** Lines over a logarithmic x axis (record counts 10 … 10,000). */
export function lineChart(options: {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
}): string {
  const width = 700;
  const height = 360;
  const left = 60;
  const right = 210;
  const top = 40;
  const bottom = 50;
  const xs = options.series.flatMap((s) => s.points.map((p) => p.x));
  const ys = options.series.flatMap((s) => s.points.map((p) => p.y));
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  const yMax = Math.max(...ys) * 1.15 || 1;
  const px = (v: number) =>
    left +
    ((Math.log10(v) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin) || 1)) *
      (width - left - right);
  const py = (v: number) => top + (1 - v / yMax) * (height - top - bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ${FONT}>`,
    `<title>${xml(options.title)}</title>`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="20" font-size="14" font-weight="bold">${xml(options.title)}</text>`,
    `<line x1="${left}" y1="${height - bottom}" x2="${width - right}" y2="${height - bottom}" stroke="#333"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="#333"/>`,
    `<text x="${(left + width - right) / 2}" y="${height - 12}" text-anchor="middle">${xml(options.xLabel)}</text>`,
    `<text x="14" y="${(top + height - bottom) / 2}" transform="rotate(-90 14 ${(top + height - bottom) / 2})" text-anchor="middle">${xml(options.yLabel)}</text>`,
  ];
  for (const tick of [...new Set(xs)].sort((a, b) => a - b))
    parts.push(
      `<text x="${px(tick)}" y="${height - bottom + 16}" text-anchor="middle">${tick.toLocaleString('en-US')}</text>`,
    );
  for (let i = 0; i <= 4; i++) {
    const v = (yMax / 4) * i;
    parts.push(
      `<text x="${left - 6}" y="${py(v) + 4}" text-anchor="end">${fmt(v)}</text>`,
      `<line x1="${left}" y1="${py(v)}" x2="${width - right}" y2="${py(v)}" stroke="#eee"/>`,
    );
  }
  options.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length]!;
    const points = series.points.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const p of series.points)
      parts.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${color}"/>`);
    parts.push(
      `<rect x="${width - right + 12}" y="${top + i * 18}" width="10" height="10" fill="${color}"/>`,
      `<text x="${width - right + 26}" y="${top + i * 18 + 9}">${xml(series.label)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
