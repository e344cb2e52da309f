// Rewrites the generated "latest values" section of docs/performance.md from results.json; the
// rest of the page is written by hand.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './paths.ts';
import type { Figure, ResultsFile } from './types.ts';

const FILE = join(ROOT, 'docs/performance.md');
const START = '<!-- latest-values:start (written by npm run bench; do not edit by hand) -->';
const END = '<!-- latest-values:end -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');
const value = (figure: Figure) =>
  typeof figure.value === 'number' ? `${figure.value}${figure.unit ? ` ${figure.unit}` : ''}` : figure.value;
const mark = (figure: Figure) => (figure.pass === undefined ? '' : figure.pass ? 'pass' : '**fail**');

export function latestValues(results: ResultsFile): string {
  const lines = [
    START,
    '',
    `Last written ${results.updated_at.slice(0, 16).replace('T', ' ')} UTC on Node.js ${results.machine.node}, ${results.machine.cpus} cores (load average ${results.machine.loadavg_1m} when it started). Each benchmark's own run time is in parentheses.`,
    '',
  ];
  for (const [name, result] of Object.entries(results.benchmarks)) {
    lines.push(`#### ${result.title} (\`${name}\`, ${result.ran_at.slice(0, 10)}, ${result.seconds} s)`, '');
    lines.push('| figure | value | budget | result | note |', '|---|---|---|---|---|');
    for (const figure of result.figures)
      lines.push(
        `| ${cell(figure.figure)} | ${cell(value(figure))} | ${cell(figure.budget ?? '')} | ${mark(figure)} | ${cell(figure.note ?? '')} |`,
      );
    lines.push('');
  }
  lines.push(END);
  return lines.join('\n');
}

export async function writeLatestValues(results: ResultsFile) {
  let text: string;
  try {
    text = await readFile(FILE, 'utf8');
  } catch {
    text = '# Performance\n\n## Latest values\n\n';
  }
  const section = latestValues(results);
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  text =
    from >= 0 && to > from
      ? text.slice(0, from) + section + text.slice(to + END.length)
      : `${text.trimEnd()}\n\n${section}\n`;
  await writeFile(FILE, text);
}
