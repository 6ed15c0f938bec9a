import type { BenchRow } from './bench-types.js';

function fmt(n: number | undefined): string {
  if (n === undefined) return '';
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toFixed(3);
}

/** A plain-text table, one row per figure, for the terminal and the closing note. */
export function formatBenchTable(rows: readonly BenchRow[]): string {
  const header = ['suite', 'metric', 'value', 'unit', 'reference', 'ratio', 'target', 'ok'];
  const body = rows.map((r) => [
    r.suite,
    r.metric,
    fmt(r.value),
    r.unit,
    fmt(r.reference),
    r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`,
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}
