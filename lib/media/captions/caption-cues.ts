import type { Cue } from '../text/cues';
import type { RecognizedWord } from './speech-recognizer';

// Recognised words → caption cues a viewer can read, following the usual subtitle guidelines:
// at most two lines of at most 42 characters (broken at word boundaries, balanced), each cue on
// screen 1–7 s, and never across a pause longer than a second: a pause ends what is on screen, so
// silence shows no caption. Within a stretch of speech, the split uses as few cues as the limits
// allow, of even lengths, breaking where the speaker pauses.

export const CAPTION_LIMITS = {
  maxLineChars: 42,
  minSeconds: 1,
  maxSeconds: 7,
  /** A gap between two words longer than this ends the cue. */
  maxPauseSeconds: 1,
} as const;

const MAX_LINES = 2;
const MAX_CUE_CHARS = CAPTION_LIMITS.maxLineChars * MAX_LINES;

// Segmentation costs (see splitPhrase): a cue costs 1, so fewer cues always win; the rest only
// picks among splits into the same number of cues.
const UNEVEN_FILL_COST = 0.5;
const SHORT_CUE_COST = 0.9;
const PAUSE_BREAK_BONUS = 0.4;

const length = (text: string) => [...text].length;
// Times are kept to the millisecond, as WebVTT writes them.
const roundMs = (seconds: number) => Math.round(seconds * 1000) / 1000;

/**
 * The words as one or two lines of at most `maxLineChars`, broken where the two lines are closest
 * in length (the lower one the longer on a tie); null if they do not fit.
 */
export const breakCaptionLines = (words: readonly string[], maxLineChars: number = CAPTION_LIMITS.maxLineChars): string[] | null => {
  const oneLine = words.join(' ');
  if (length(oneLine) <= maxLineChars) return [oneLine];
  let best: { lines: string[]; imbalance: number } | null = null;
  for (let split = 1; split < words.length; split++) {
    const top = words.slice(0, split).join(' ');
    const bottom = words.slice(split).join(' ');
    if (length(top) > maxLineChars || length(bottom) > maxLineChars) continue;
    const imbalance = Math.abs(length(top) - length(bottom)) + (length(top) > length(bottom) ? 0.5 : 0);
    if (!best || imbalance < best.imbalance) best = { lines: [top, bottom], imbalance };
  }
  return best?.lines ?? null;
};

// "i", "i'm", "i'll", … are the only words whose case is certain without punctuation.
const displayWord = (word: string) => word.replace(/^i('|$)/, 'I$1');

// A token too long for a line (no dictionary word is) is cut into line-sized pieces sharing its time.
const fitToLines = (word: RecognizedWord): RecognizedWord[] => {
  const chars = [...word.word];
  if (chars.length <= CAPTION_LIMITS.maxLineChars) return [word];
  const pieces = Math.ceil(chars.length / CAPTION_LIMITS.maxLineChars);
  const step = (word.end - word.start) / pieces;
  return Array.from({ length: pieces }, (_, index) => ({
    word: chars.slice(index * CAPTION_LIMITS.maxLineChars, (index + 1) * CAPTION_LIMITS.maxLineChars).join(''),
    start: word.start + index * step,
    end: word.start + (index + 1) * step,
  }));
};

const cleanWords = (words: readonly RecognizedWord[]): RecognizedWord[] =>
  words
    .map((word) => ({ word: displayWord(word.word.trim()), start: roundMs(Math.max(0, word.start)), end: roundMs(Math.max(0, word.start, word.end)) }))
    .filter((word) => word.word !== '' && !/\s/.test(word.word) && Number.isFinite(word.start) && Number.isFinite(word.end))
    .sort((a, b) => a.start - b.start || a.end - b.end)
    .flatMap(fitToLines);

/** Runs of words with no pause longer than maxPauseSeconds between them. */
const splitAtPauses = (words: RecognizedWord[]): RecognizedWord[][] => {
  const phrases: RecognizedWord[][] = [];
  let current: RecognizedWord[] = [];
  for (const word of words) {
    const previous = current.at(-1);
    if (previous && word.start - previous.end > CAPTION_LIMITS.maxPauseSeconds) {
      phrases.push(current);
      current = [];
    }
    current.push(word);
  }
  if (current.length > 0) phrases.push(current);
  return phrases;
};

type Piece = { words: RecognizedWord[]; lines: string[] };

/**
 * The cheapest split of a phrase into cues that fit (dynamic programming over break points). A
 * cue fits when its words make at most two lines and it spans at most maxSeconds; a single word
 * always fits (its time is clamped later).
 */
const splitPhrase = (phrase: RecognizedWord[]): Piece[] => {
  const count = phrase.length;
  const best: Array<{ cost: number; from: number; lines: string[] } | null> = Array.from({ length: count + 1 }, () => null);
  best[0] = { cost: 0, from: -1, lines: [] };
  for (let end = 1; end <= count; end++) {
    const last = phrase[end - 1]!;
    let chars = -1;
    for (let start = end - 1; start >= 0; start--) {
      const first = phrase[start]!;
      chars += length(first.word) + 1;
      if (chars > MAX_CUE_CHARS + 1) break;
      const span = last.end - first.start;
      const single = start === end - 1;
      if (!single && span > CAPTION_LIMITS.maxSeconds) break;
      const lines = breakCaptionLines(phrase.slice(start, end).map((word) => word.word));
      if (!lines) continue;
      const before = best[start];
      if (!before) continue;
      const fill = Math.min(1, chars / MAX_CUE_CHARS);
      const pauseAfter = end < count ? Math.min(CAPTION_LIMITS.maxPauseSeconds, phrase[end]!.start - last.end) : 0;
      const cost =
        before.cost +
        1 +
        UNEVEN_FILL_COST * (1 - fill) ** 2 +
        (span < CAPTION_LIMITS.minSeconds ? SHORT_CUE_COST : 0) -
        PAUSE_BREAK_BONUS * Math.max(0, pauseAfter);
      const current = best[end];
      if (!current || cost < current.cost) best[end] = { cost, from: start, lines };
    }
  }
  const pieces: Piece[] = [];
  for (let end = count; end > 0; ) {
    const step = best[end]!;
    pieces.unshift({ words: phrase.slice(step.from, end), lines: step.lines });
    end = step.from;
  }
  return pieces;
};

/**
 * Cues shorter than minSeconds stay up longer: their end moves later (up to the next cue, the end
 * of the media), then if need be their start earlier (down to the previous cue). The extension is
 * under a second of what followed or preceded the words, so no cue reaches across a long pause.
 */
const extendShortCues = (cues: Cue[], mediaEndSeconds: number | undefined): Cue[] => {
  const extended: Cue[] = [];
  cues.forEach((cue, index) => {
    let { start, end } = cue;
    if (end - start < CAPTION_LIMITS.minSeconds) {
      const nextStart = cues[index + 1]?.start ?? Infinity;
      end = Math.max(end, Math.min(start + CAPTION_LIMITS.minSeconds, nextStart, mediaEndSeconds ?? Infinity));
      const previousEnd = extended.at(-1)?.end ?? 0;
      if (end - start < CAPTION_LIMITS.minSeconds) start = Math.min(start, Math.max(end - CAPTION_LIMITS.minSeconds, previousEnd, 0));
    }
    extended.push({ ...cue, start, end });
  });
  return extended;
};

/**
 * Caption cues from recognised words (any order; empty or whitespace tokens are ignored).
 * `mediaEndSeconds`, when known, keeps lengthened cues within the media.
 */
export const buildCaptionCues = (words: readonly RecognizedWord[], { mediaEndSeconds }: { mediaEndSeconds?: number } = {}): Cue[] => {
  const cues = splitAtPauses(cleanWords(words))
    .flatMap(splitPhrase)
    .map(({ words: cueWords, lines }) => {
      const start = cueWords[0]!.start;
      const end = Math.min(cueWords.at(-1)!.end, start + CAPTION_LIMITS.maxSeconds);
      return { start, end, text: lines.join('\n') };
    });
  return extendShortCues(cues, mediaEndSeconds).map((cue) => ({ ...cue, start: roundMs(cue.start), end: roundMs(cue.end) }));
};
