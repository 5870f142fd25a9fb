import path from 'node:path';
import type { RecognizedWord } from './speech-recognizer';

// CMU PocketSphinx (Debian `pocketsphinx` + `pocketsphinx-en-us`): the command line that
// transcribes a WAV with word times, and the reading of what it prints. With `-time yes` stdout
// has, per utterance, the utterance's text and then one line per token: `word start end posterior`,
// times in seconds from the start of the file.

export { DEFAULT_POCKETSPHINX_MODEL_DIR } from './pocketsphinx-model';

/** The model's parts: acoustic model folder, language model, pronouncing dictionary. */
export const pocketsphinxModelFiles = (modelDir: string) => ({
  acousticModel: path.join(modelDir, 'en-us'),
  languageModel: path.join(modelDir, 'en-us.lm.bin'),
  dictionary: path.join(modelDir, 'cmudict-en-us.dict'),
});

// The model is named explicitly (the binary's built-in default is the same Debian path) so that a
// POCKETSPHINX_MODEL_DIR elsewhere works and a missing model is found before the run.
export const buildPocketsphinxArgs = ({ wavPath, modelDir }: { wavPath: string; modelDir: string }): string[] => {
  const model = pocketsphinxModelFiles(modelDir);
  return ['-infile', wavPath, '-hmm', model.acousticModel, '-lm', model.languageModel, '-dict', model.dictionary, '-time', 'yes'];
};

/**
 * The recogniser reading a live stream: raw 16 kHz mono s16le PCM on stdin, one result per
 * utterance as soon as the speaker pauses. `-vad_postspeech 12` ends an utterance after 0.12 s of
 * silence (default 0.5 s). Measured on the festival voice of the captions tests, a 15 s paragraph
 * read in real time: the default gave one utterance 1.1 s after the paragraph ended; 0.18 s gave
 * six, one of them 3.6 s long; 0.12 s gave ten phrases of at most ~2.5 s, each answered 0.3–1 s
 * after it was said. Word error rate 18.6 % at 0.12 s, 16.3 % at 0.18 s, 21–23 % at 0.25–0.5 s,
 * 33 % at 0.08 s (shorter utterances give the language model less context).
 */
export const buildPocketsphinxStreamArgs = ({ modelDir }: { modelDir: string }): string[] => {
  const model = pocketsphinxModelFiles(modelDir);
  return [
    '-infile',
    '/dev/stdin',
    '-hmm',
    model.acousticModel,
    '-lm',
    model.languageModel,
    '-dict',
    model.dictionary,
    '-time',
    'yes',
    '-vad_postspeech',
    '12',
    '-logfn',
    '/dev/null',
  ];
};

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i;

// Sentence markers and silence (<s> </s> <sil>), noise and unintelligible speech ([NOISE] [SPEECH],
// ++NOISE++ in older models): what the engine heard, but not words.
export const isFillerToken = (token: string): boolean => /^(<[^>]*>|\[[^\]]*\]|\+\+?[^+]*\+\+?)$/.test(token);

type TokenLine = { token: string; word: RecognizedWord | null };

// One line of output: a timed token (a word, or a filler with word null), or null for any other line.
const readTokenLine = (line: string): TokenLine | null => {
  const match = WORD_LINE.exec(line.trim());
  if (!match) return null;
  const token = match[1]!;
  // `to(2)`: the dictionary's second pronunciation of "to".
  const word = isFillerToken(token) ? '' : token.replace(/\(\d+\)$/, '');
  return { token, word: word === '' ? null : { word, start: Number(match[2]), end: Number(match[3]) } };
};

/** The words of pocketsphinx_continuous `-time yes` output, in order, fillers dropped. */
export const parsePocketsphinxWords = (stdout: string): RecognizedWord[] =>
  stdout.split(/\r?\n/).flatMap((line) => readTokenLine(line)?.word ?? []);

/**
 * Reads the recogniser's stdout as it streams: push() takes text as it arrives (lines may be cut
 * anywhere) and returns the utterances completed by it, each the words between its `<s>` and
 * `</s>`; end() returns what an utterance cut short by the end of the stream had.
 */
export class PocketsphinxUtteranceReader {
  private pendingText = '';
  private words: RecognizedWord[] = [];

  push(text: string): RecognizedWord[][] {
    this.pendingText += text;
    const lines = this.pendingText.split('\n');
    this.pendingText = lines.pop() ?? '';
    const completed: RecognizedWord[][] = [];
    for (const line of lines) {
      const read = readTokenLine(line);
      if (!read) continue;
      if (read.word) this.words.push(read.word);
      if (read.token === '</s>') {
        if (this.words.length > 0) completed.push(this.words);
        this.words = [];
      }
    }
    return completed;
  }

  end(): RecognizedWord[][] {
    const last = readTokenLine(this.pendingText)?.word;
    if (last) this.words.push(last);
    this.pendingText = '';
    const rest = this.words.length > 0 ? [this.words] : [];
    this.words = [];
    return rest;
  }
}
