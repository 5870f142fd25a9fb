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

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i;

// Sentence markers and silence (<s> </s> <sil>), noise and unintelligible speech ([NOISE] [SPEECH],
// ++NOISE++ in older models): what the engine heard, but not words.
export const isFillerToken = (token: string): boolean => /^(<[^>]*>|\[[^\]]*\]|\+\+?[^+]*\+\+?)$/.test(token);

/** The words of pocketsphinx_continuous `-time yes` output, in order, fillers dropped. */
export const parsePocketsphinxWords = (stdout: string): RecognizedWord[] => {
  const words: RecognizedWord[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    const match = WORD_LINE.exec(line.trim());
    if (!match) continue;
    const token = match[1]!;
    if (isFillerToken(token)) continue;
    // `to(2)`: the dictionary's second pronunciation of "to".
    const word = token.replace(/\(\d+\)$/, '');
    if (word === '') continue;
    words.push({ word, start: Number(match[2]), end: Number(match[3]) });
  }
  return words;
};
