import type { Cue } from './cues';
import { SubtitleFileProblem } from './cue-timing';
import { decodeTextFile } from './decode-text';
import { parseSrt } from './parse-srt';
import { parseWebVtt } from './parse-webvtt';

// An uploaded subtitle file, whatever its name or Content-Type says: WebVTT when it starts with the
// WebVTT signature, SRT when it has cue timing lines, refused otherwise with the reason. The cues
// come out ready to store: with text, sorted by start, identifiers unique (hls.js keeps only the
// first cue of an identifier, so a repeated one would hide cues).

export type SubtitleFormat = 'webvtt' | 'srt';

export type ParsedSubtitles = { ok: true; format: SubtitleFormat; cues: Cue[] } | { ok: false; reason: string };

const WEBVTT_SIGNATURE = /^WEBVTT(?:[ \t\n]|$)/;

// Formats people upload by mistake, named so the reason says what the file is.
const otherFormat = (text: string): string | null => {
  const start = text.trimStart().slice(0, 200);
  if (/^\[Script Info\]/i.test(start)) return 'SSA/ASS subtitles';
  if (/^<\?xml|^<tt[\s>]/i.test(start)) return 'XML (TTML or DFXP subtitles, perhaps)';
  if (/^<!doctype html|^<html[\s>]/i.test(start)) return 'an HTML page';
  if (/^\{/.test(start)) return 'JSON';
  return null;
};

export const detectSubtitleFormat = (text: string): SubtitleFormat | null => {
  if (WEBVTT_SIGNATURE.test(text)) return 'webvtt';
  if (otherFormat(text) !== null) return null;
  return text.includes('-->') ? 'srt' : null;
};

const normalise = (cues: Cue[]): Cue[] => {
  const seenIds = new Set<string>();
  return cues
    .filter((cue) => cue.text.trim() !== '')
    .map((cue, order) => ({ cue, order }))
    .sort((a, b) => a.cue.start - b.cue.start || a.cue.end - b.cue.end || a.order - b.order)
    .map(({ cue }) => {
      if (cue.id === undefined) return cue;
      if (!seenIds.has(cue.id)) {
        seenIds.add(cue.id);
        return cue;
      }
      const { id: _repeated, ...withoutId } = cue;
      return withoutId;
    });
};

/** Text with any line ends and an optional BOM. */
export const parseSubtitles = (text: string): ParsedSubtitles => {
  const normalised = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (normalised.trim() === '') return { ok: false, reason: 'the file is empty' };
  const format = detectSubtitleFormat(normalised);
  if (format === null) {
    const other = otherFormat(normalised);
    return {
      ok: false,
      reason: other
        ? `the file is ${other}, not WebVTT or SRT`
        : 'the file is neither WebVTT (it does not start with "WEBVTT") nor SRT (it has no timing line like "00:00:01,000 --> 00:00:04,000")',
    };
  }
  try {
    const cues = normalise(format === 'webvtt' ? parseWebVtt(normalised) : parseSrt(normalised));
    if (cues.length === 0) return { ok: false, reason: `the ${format === 'webvtt' ? 'WebVTT' : 'SRT'} file has no cues with text` };
    return { ok: true, format, cues };
  } catch (error) {
    if (error instanceof SubtitleFileProblem) return { ok: false, reason: error.message };
    throw error;
  }
};

/** The bytes of an uploaded file (see decode-text.ts for the encodings read). */
export const parseSubtitleFile = (bytes: Uint8Array): ParsedSubtitles => {
  const decoded = decodeTextFile(bytes);
  return decoded.ok ? parseSubtitles(decoded.text) : decoded;
};
