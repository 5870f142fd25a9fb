import type { Cue } from './cues';
import { parseCueTiming, SubtitleFileProblem } from './cue-timing';

// A WebVTT file (W3C WebVTT §6.1, the parts a stored track keeps): cues with their identifiers,
// settings and markup. NOTE, STYLE and REGION blocks are skipped (a track is shown by each
// player's own styling, and regions are not carried over), and so is any block without a timing
// line, as browsers do; a line that has an arrow but no valid timing is an error.

const SIGNATURE = /^WEBVTT(?:[ \t]|$)/;
const SKIPPED_BLOCK = /^(?:NOTE|STYLE|REGION)(?:[ \t]|$)/;
// Settings a player positions a cue with; `region:` would name a region that is not kept.
const KEPT_SETTING = /^(?:vertical|line|position|size|align):\S+$/;

const keptSettings = (rest: string): string | undefined => {
  const settings = rest.split(/[ \t]+/).filter((setting) => KEPT_SETTING.test(setting));
  return settings.length > 0 ? settings.join(' ') : undefined;
};

/** `text` has `\n` line ends and no BOM. */
export const parseWebVtt = (text: string): Cue[] => {
  const lines = text.split('\n');
  if (!SIGNATURE.test(lines[0] ?? '')) throw new SubtitleFileProblem(1, 'a WebVTT file must start with "WEBVTT"');
  // The header runs to the first blank line; a timing line right below the signature (common in
  // hand-written files) ends it as well.
  let at = 1;
  while (at < lines.length && lines[at]!.trim() !== '' && !lines[at]!.includes('-->')) at++;
  const cues: Cue[] = [];
  while (at < lines.length) {
    if (lines[at]!.trim() === '') {
      at++;
      continue;
    }
    const blockStart = at;
    while (at < lines.length && lines[at]!.trim() !== '') at++;
    cues.push(...blockCues(lines.slice(blockStart, at), blockStart + 1));
  }
  return cues;
};

// One block of non-blank lines, starting on line `firstLine`: usually one cue, but a line with an
// arrow inside a payload starts another (WebVTT §6.1 "collect WebVTT block").
const blockCues = (block: string[], firstLine: number): Cue[] => {
  if (SKIPPED_BLOCK.test(block[0]!) && !block[0]!.includes('-->')) return [];
  const cues: Cue[] = [];
  let at = 0;
  while (at < block.length) {
    let id: string | undefined;
    if (!block[at]!.includes('-->')) {
      if (!block[at + 1]?.includes('-->')) return cues;
      id = block[at]!.trim();
      at++;
    }
    const timing = parseCueTiming(block[at]!, firstLine + at);
    at++;
    const payload: string[] = [];
    while (at < block.length && !block[at]!.includes('-->')) payload.push(block[at++]!);
    const settings = keptSettings(timing.rest);
    cues.push({ start: timing.start, end: timing.end, text: payload.join('\n'), ...(id && { id }), ...(settings && { settings }) });
  }
  return cues;
};
