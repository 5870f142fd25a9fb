import { describe, expect, test } from 'vitest';
import {
  buildPocketsphinxArgs,
  buildPocketsphinxStreamArgs,
  DEFAULT_POCKETSPHINX_MODEL_DIR,
  isFillerToken,
  parsePocketsphinxWords,
  PocketsphinxUtteranceReader,
} from './pocketsphinx';

const option = (args: string[], name: string) => args[args.indexOf(name) + 1];

// What pocketsphinx_continuous -time yes printed for two utterances of a synthetic voice (trimmed).
const OUTPUT = `welcome to the weekly product
<s> 0.060 0.140 1.000000
welcome 0.150 0.600 0.966278
to(2) 0.610 0.730 0.869431
the 0.740 0.850 1.000100
<sil> 0.860 0.900 0.379306
weekly 0.910 1.250 1.000000
[NOISE] 1.250 1.400 0.500000
product 1.410 1.790 0.524518
</s> 1.800 1.900 1.000000
hard on making
<s> 17.170 17.250 0.999900
hard 17.260 17.710 0.963576
[SPEECH] 17.710 17.800 0.200000
on 17.800 17.900 0.916851
++NOISE++ 17.900 18.000 0.100000
making(3) 18.010 18.400 0.997303
</s> 18.400 18.600 1.000000
`;

describe('parsePocketsphinxWords', () => {
  test('the timed words of every utterance, fillers dropped, alternate pronunciations named by their word', () => {
    expect(parsePocketsphinxWords(OUTPUT)).toEqual([
      { word: 'welcome', start: 0.15, end: 0.6 },
      { word: 'to', start: 0.61, end: 0.73 },
      { word: 'the', start: 0.74, end: 0.85 },
      { word: 'weekly', start: 0.91, end: 1.25 },
      { word: 'product', start: 1.41, end: 1.79 },
      { word: 'hard', start: 17.26, end: 17.71 },
      { word: 'on', start: 17.8, end: 17.9 },
      { word: 'making', start: 18.01, end: 18.4 },
    ]);
  });

  test('utterance text lines are not words', () => {
    expect(parsePocketsphinxWords('hello world\nhello world again\n')).toEqual([]);
  });

  test('nothing heard, nothing parsed', () => {
    expect(parsePocketsphinxWords('')).toEqual([]);
  });

  test('posteriors in exponent notation and Windows line ends are read', () => {
    expect(parsePocketsphinxWords('yes 1.000 1.200 1.2e-05\r\n')).toEqual([{ word: 'yes', start: 1, end: 1.2 }]);
  });

  test.each(['<s>', '</s>', '<sil>', '[NOISE]', '[SPEECH]', '++NOISE++', '+SPN+'])('%s is a filler', (token) => {
    expect(isFillerToken(token)).toBe(true);
  });

  test.each(['to', "don't", 'a', 'x-ray'])('%s is a word', (token) => {
    expect(isFillerToken(token)).toBe(false);
  });
});

describe('buildPocketsphinxArgs', () => {
  test('the WAV, the three model files of the model folder, word times on', () => {
    const args = buildPocketsphinxArgs({ wavPath: '/w/speech.wav', modelDir: DEFAULT_POCKETSPHINX_MODEL_DIR });
    expect(option(args, '-infile')).toBe('/w/speech.wav');
    expect(option(args, '-hmm')).toBe('/usr/share/pocketsphinx/model/en-us/en-us');
    expect(option(args, '-lm')).toBe('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin');
    expect(option(args, '-dict')).toBe('/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict');
    expect(option(args, '-time')).toBe('yes');
  });

  test('another model folder', () => {
    const args = buildPocketsphinxArgs({ wavPath: 'a.wav', modelDir: '/opt/models/en-us' });
    expect(option(args, '-hmm')).toBe('/opt/models/en-us/en-us');
  });
});

describe('PocketsphinxUtteranceReader', () => {
  test('utterances as their </s> arrives, whatever the chunking; a cut-short one at the end', () => {
    const reader = new PocketsphinxUtteranceReader();
    const cut = OUTPUT.indexOf('duct 1.410');
    expect(reader.push(OUTPUT.slice(0, cut))).toEqual([]);
    const rest = OUTPUT.slice(cut);
    const untilSecond = rest.indexOf('making(3)');
    expect(reader.push(rest.slice(0, untilSecond))).toEqual([
      [
        { word: 'welcome', start: 0.15, end: 0.6 },
        { word: 'to', start: 0.61, end: 0.73 },
        { word: 'the', start: 0.74, end: 0.85 },
        { word: 'weekly', start: 0.91, end: 1.25 },
        { word: 'product', start: 1.41, end: 1.79 },
      ],
    ]);
    expect(reader.push('making(3) 18.010 18.400 0.997303')).toEqual([]);
    expect(reader.end()).toEqual([
      [
        { word: 'hard', start: 17.26, end: 17.71 },
        { word: 'on', start: 17.8, end: 17.9 },
        { word: 'making', start: 18.01, end: 18.4 },
      ],
    ]);
    expect(reader.end()).toEqual([]);
  });

  test('streaming arguments: PCM from stdin, short end-of-utterance silence, no log', () => {
    const args = buildPocketsphinxStreamArgs({ modelDir: '/models' });
    expect(option(args, '-infile')).toBe('/dev/stdin');
    expect(option(args, '-vad_postspeech')).toBe('12');
    expect(option(args, '-logfn')).toBe('/dev/null');
    expect(option(args, '-hmm')).toBe('/models/en-us');
  });
});
