import { describe, expect, test } from 'vitest';
import type { Cue } from '../text/cues';
import { breakCaptionLines, buildCaptionCues, CAPTION_LIMITS } from './caption-cues';
import type { RecognizedWord } from './speech-recognizer';

// Words spoken one after the other from `start`: each takes `wordSeconds`, with `gap` between.
const speak = (text: string, { start = 0, wordSeconds = 0.3, gap = 0.05 } = {}): RecognizedWord[] =>
  text
    .split(' ')
    .map((word, index) => ({ word, start: start + index * (wordSeconds + gap), end: start + index * (wordSeconds + gap) + wordSeconds }))
    .map((word) => ({ ...word, start: Math.round(word.start * 1000) / 1000, end: Math.round(word.end * 1000) / 1000 }));

const endOf = (words: RecognizedWord[]) => words.at(-1)!.end;
const wordsOf = (cues: Cue[]) => cues.flatMap((cue) => cue.text.split(/\s+/));

const expectReadable = (cues: Cue[]) => {
  cues.forEach((cue, index) => {
    const lines = cue.text.split('\n');
    expect(lines.length, cue.text).toBeLessThanOrEqual(2);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(CAPTION_LIMITS.maxLineChars);
    expect(cue.end - cue.start, `${cue.start}–${cue.end}`).toBeLessThanOrEqual(CAPTION_LIMITS.maxSeconds + 1e-9);
    if (index > 0) expect(cue.start).toBeGreaterThanOrEqual(cues[index - 1]!.end);
  });
};

const LONG_TEXT =
  'welcome to the weekly product update today we are going to talk about video uploads automatic captions and the new ' +
  'analytics dashboard our team worked hard on making playback faster for everyone who watches on a phone or a laptop';

describe('breakCaptionLines', () => {
  test('one line when the words fit', () => {
    expect(breakCaptionLines(['hello', 'there'])).toEqual(['hello there']);
  });

  test('two lines of balanced length, broken between words', () => {
    const words = 'today we are going to talk about video uploads and automatic captions'.split(' ');
    const lines = breakCaptionLines(words)!;
    expect(lines).toHaveLength(2);
    expect(lines.join(' ')).toBe(words.join(' '));
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(42);
    expect(Math.abs(lines[0]!.length - lines[1]!.length)).toBeLessThanOrEqual(8);
  });

  test('on a tie the lower line is the longer', () => {
    expect(breakCaptionLines(['aaaa', 'bbbb', 'cccc'], 9)).toEqual(['aaaa', 'bbbb cccc']);
  });

  test('null when no break fits two lines', () => {
    expect(breakCaptionLines(Array.from({ length: 30 }, () => 'word'))).toBeNull();
  });
});

describe('buildCaptionCues', () => {
  test('no words, no cues', () => {
    expect(buildCaptionCues([])).toEqual([]);
  });

  test('a short phrase is one cue from its first word to its last', () => {
    const words = speak('hello there how are you doing today', { start: 2 });
    expect(buildCaptionCues(words)).toEqual([{ start: 2, end: endOf(words), text: 'hello there how are you doing today' }]);
  });

  test('long speech: every cue at most two lines of 42 characters and 7 s, and every word kept in order', () => {
    const words = speak(`${LONG_TEXT} ${LONG_TEXT}`);
    const cues = buildCaptionCues(words);
    expect(cues.length).toBeGreaterThan(3);
    expectReadable(cues);
    expect(wordsOf(cues)).toEqual(words.map((word) => word.word));
    expect(cues.some((cue) => cue.text.includes('\n'))).toBe(true);
  });

  test('lines within a cue are balanced', () => {
    const cues = buildCaptionCues(speak('today we are going to talk about video uploads and automatic captions'));
    expect(cues).toHaveLength(1);
    const [top, bottom] = cues[0]!.text.split('\n');
    expect(Math.abs(top!.length - bottom!.length)).toBeLessThanOrEqual(8);
  });

  test('a phrase too long for one cue is split into cues of even length, not a full one and a scrap', () => {
    // 100 characters spoken fast: two cues of about 50, rather than 84 + 16.
    const text = 'this sentence is spoken quickly so that it needs two cues and the split should share the words fairly';
    const cues = buildCaptionCues(speak(text, { wordSeconds: 0.15, gap: 0.02 }));
    expect(cues).toHaveLength(2);
    const sizes = cues.map((cue) => cue.text.replace('\n', ' ').length);
    expect(Math.abs(sizes[0]! - sizes[1]!)).toBeLessThanOrEqual(15);
  });

  test('slow speech is split so that no cue is on screen longer than 7 s', () => {
    const words = speak('a b c d e f g h j k l m n o p q', { wordSeconds: 0.6, gap: 0.4 });
    const cues = buildCaptionCues(words);
    expect(cues.length).toBeGreaterThanOrEqual(3);
    for (const cue of cues) expect(cue.end - cue.start).toBeLessThanOrEqual(7);
    expect(wordsOf(cues)).toEqual(words.map((word) => word.word));
  });

  test('one word held longer than 7 s is cut to 7 s', () => {
    expect(buildCaptionCues([{ word: 'ohm', start: 1, end: 12 }])).toEqual([{ start: 1, end: 8, text: 'ohm' }]);
  });

  test('a pause longer than a second ends the cue: no cue spans it, and none is shown during it', () => {
    const before = speak('hello there', { start: 0 });
    const after = speak('general kenobi', { start: endOf(before) + 4 });
    const cues = buildCaptionCues([...before, ...after]);
    expect(cues.map((cue) => cue.text)).toEqual(['hello there', 'general kenobi']);
    const silence = { start: endOf(before), end: after[0]!.start };
    // At most the 1 s minimum display reaches into the pause.
    for (const cue of cues) expect(cue.end <= silence.start + 1 || cue.start >= silence.end).toBe(true);
    expect(cues[0]!.end).toBeLessThanOrEqual(silence.start + 1);
  });

  test('a pause of a second or less does not split a cue that fits', () => {
    const before = speak('hello there', { start: 0 });
    const after = speak('general kenobi', { start: endOf(before) + 0.9 });
    expect(buildCaptionCues([...before, ...after]).map((cue) => cue.text)).toEqual(['hello there general kenobi']);
  });

  test('where a split is needed, it falls at the speaker’s pause', () => {
    const first = speak('we shipped video uploads and automatic captions this week', { wordSeconds: 0.25, gap: 0.03 });
    const second = speak('next week the analytics dashboard gets a brand new look', { start: endOf(first) + 0.8, wordSeconds: 0.25, gap: 0.03 });
    const cues = buildCaptionCues([...first, ...second]);
    expect(cues.map((cue) => cue.text.replace('\n', ' '))).toEqual([first, second].map((words) => words.map((word) => word.word).join(' ')));
  });

  test('a cue shorter than a second stays up for a second', () => {
    const cues = buildCaptionCues([{ word: 'yes', start: 3, end: 3.2 }]);
    expect(cues).toEqual([{ start: 3, end: 4, text: 'yes' }]);
  });

  test('a short cue is lengthened no further than the next cue; then it starts earlier', () => {
    // "no" cannot share a cue with the word held after it (together they would span 7.5 s).
    const cues = buildCaptionCues([
      { word: 'no', start: 3, end: 3.2 },
      { word: 'whoa', start: 3.5, end: 10.5 },
    ]);
    expect(cues).toEqual([
      { start: 2.5, end: 3.5, text: 'no' },
      { start: 3.5, end: 10.5, text: 'whoa' },
    ]);
  });

  test('a short cue starts no earlier than the previous cue ends', () => {
    const cues = buildCaptionCues([
      { word: 'whoa', start: 0, end: 6.9 },
      { word: 'no', start: 7, end: 7.2 },
      { word: 'whoa', start: 7.4, end: 14.5 },
    ]);
    expect(cues.map((cue) => [cue.start, cue.end])).toEqual([
      [0, 6.9],
      [6.9, 7.4],
      [7.4, 14.4],
    ]);
  });

  test('a short cue is not lengthened past the end of the media', () => {
    expect(buildCaptionCues([{ word: 'bye', start: 9.5, end: 9.8 }], { mediaEndSeconds: 10 })).toEqual([{ start: 9, end: 10, text: 'bye' }]);
  });

  test('words given out of order are put in order', () => {
    const words = speak('one two three');
    expect(buildCaptionCues([words[2]!, words[0]!, words[1]!])[0]!.text).toBe('one two three');
  });

  test('empty and whitespace tokens are ignored', () => {
    const cues = buildCaptionCues([...speak('hello'), { word: ' ', start: 0.4, end: 0.5 }, { word: '', start: 0.6, end: 0.7 }]);
    expect(cues.map((cue) => cue.text)).toEqual(['hello']);
  });

  test('"i" and its contractions are capitalised; other words keep the engine’s case', () => {
    expect(buildCaptionCues(speak("i think i'm sure it is"))[0]!.text).toBe("I think I'm sure it is");
  });

  test('a token longer than a line is cut into line-sized pieces', () => {
    const cues = buildCaptionCues([{ word: 'x'.repeat(100), start: 0, end: 3 }]);
    expectReadable(cues);
    expect(cues.map((cue) => cue.text.replace(/\n/g, '')).join('')).toBe('x'.repeat(100));
  });
});
