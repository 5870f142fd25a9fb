import type { ScaledResult } from './scaled';
import { formatMs, formatRatio } from '../stats';

// The `--scaled` section of results.md: the embedded default's medians next to each scaled
// topology's, scaled ÷ embedded, and what the scaled run leaves out.

const cell = (value: string | null) => value ?? 'n/a';

export const renderScaled = (value: ScaledResult): string[] => {
  const labels = value.configurations.map((configuration) => configuration.label);
  const header = ['Measurement', 'Embedded default (SQLite + disk)', ...labels.flatMap((label) => [label, '÷ embedded'])];
  const rows = value.comparison.map((row) => [
    row.measurement,
    formatMs(row.embeddedMs),
    ...row.scaled.flatMap((entry) => [formatMs(entry.ms), entry.ratio === null ? 'n/a' : formatRatio(entry.ratio)]),
  ]);
  const lines = [
    `Services: ${value.services.postgres}, ${value.services.redis}, ${value.services.s3}. ` +
      'Each topology ran on a database, key prefix and server(s) of its own, after the embedded default, with the same inputs in the same order.',
    [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n'),
  ];
  const failures = value.configurations.flatMap((configuration) =>
    [configuration.timeToReady, configuration.segments].flatMap((part) => (part.status === 'error' ? [`- **${configuration.label} failed:** ${part.error.split('\n')[0]}`] : [])),
  );
  if (failures.length > 0) lines.push(failures.join('\n'));
  lines.push(`Not measured by the scaled run:\n${value.notMeasured.filter((line) => !line.startsWith('Failed: ')).map((line) => `- ${line}`).join('\n')}`);
  return lines;
};
