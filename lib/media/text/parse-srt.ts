import type { Cue } from './cues';
import { parseCueTiming } from './cue-timing';
import { srtTextToWebVtt } from './srt-markup';

// A SubRip (SRT) file: counter, timing, text, blank line. Read from its timing lines rather than
// its blank lines, since real files drop the blank line before a counter or put blank lines inside
// a cue's text. Counters are dropped (cues are renumbered by their order anyway); anything after
// the end time (old `X1:… Y2:…` coordinates) is ignored.

const COUNTER = /^\s*\d+\s*$/;

const isBlank = (line: string | undefined) => line === undefined || line.trim() === '';

/** `text` has `\n` line ends and no BOM. */
export const parseSrt = (text: string): Cue[] => {
  const lines = text.split('\n');
  const timingLines = lines.flatMap((line, index) => (line.includes('-->') ? [index] : []));
  return timingLines.map((at, position) => {
    const timing = parseCueTiming(lines[at]!, at + 1);
    const next = timingLines[position + 1];
    let end = next ?? lines.length;
    if (next !== undefined && COUNTER.test(lines[next - 1] ?? '')) end = next - 1;
    let start = at + 1;
    while (start < end && isBlank(lines[start])) start++;
    while (end > start && isBlank(lines[end - 1])) end--;
    const converted = srtTextToWebVtt(lines.slice(start, end).join('\n'));
    return { start: timing.start, end: timing.end, text: converted.text, ...(converted.settings && { settings: converted.settings }) };
  });
};
