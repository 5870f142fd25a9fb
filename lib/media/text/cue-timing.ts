// Cue timing lines, shared by the WebVTT and SRT readers: `00:01:02.500 --> 00:01:04.000 line:0`.
// Accepted beyond what each format's spec allows, because real files do it: `,` or `.` before the
// milliseconds, minutes:seconds without hours, one-digit fields, no spaces around the arrow.

/** A problem with a subtitle file, at a line (1-based) when there is one. */
export class SubtitleFileProblem extends Error {
  constructor(
    readonly line: number | null,
    detail: string,
  ) {
    super(line === null ? detail : `line ${line}: ${detail}`);
    this.name = 'SubtitleFileProblem';
  }
}

const TIMESTAMP = /^(?:(\d+):)?(\d{1,2}):(\d{1,2})[.,](\d{1,3})$/;

/** Seconds, or null when `value` is not a timestamp. */
export const parseTimestamp = (value: string): number | null => {
  const match = TIMESTAMP.exec(value);
  if (!match) return null;
  const [, hours = '0', minutes = '0', seconds = '0', fraction = '0'] = match;
  if (Number(minutes) > 59 || Number(seconds) > 59) return null;
  // A fraction of fewer than three digits is a decimal fraction: `,5` is half a second.
  const milliseconds = Number(fraction.padEnd(3, '0'));
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + milliseconds / 1000;
};

export type CueTiming = { start: number; end: number; rest: string };

const show = (line: string) => (line.length > 60 ? `${line.slice(0, 57)}…` : line);

/** Reads `start --> end[ rest]` on line `lineNumber`; throws a SubtitleFileProblem saying what is wrong. */
export const parseCueTiming = (line: string, lineNumber: number): CueTiming => {
  const arrow = line.indexOf('-->');
  const startText = line.slice(0, arrow).trim();
  const [endText = '', ...rest] = line
    .slice(arrow + 3)
    .trim()
    .split(/[ \t]+/);
  const start = parseTimestamp(startText);
  const end = parseTimestamp(endText);
  if (start === null || end === null) {
    const bad = start === null ? startText : endText;
    throw new SubtitleFileProblem(
      lineNumber,
      `"${show(bad)}" in "${show(line.trim())}" is not a timestamp (expected hours:minutes:seconds.milliseconds, e.g. 00:01:02.500)`,
    );
  }
  if (end <= start) throw new SubtitleFileProblem(lineNumber, `the cue ends (${endText}) before or when it starts (${startText})`);
  return { start, end, rest: rest.join(' ') };
};
