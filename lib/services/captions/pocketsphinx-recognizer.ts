import { stat } from 'node:fs/promises';
import { abortError } from '../../media/media-errors';
import { buildPocketsphinxArgs, parsePocketsphinxWords, pocketsphinxModelFiles } from '../../media/captions/pocketsphinx';
import { SpeechEngineUnavailableError, type SpeechRecognizer } from '../../media/captions/speech-recognizer';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';

// The default captions engine: CMU PocketSphinx from Debian, run as a child process at background
// priority (it keeps one core busy for about a fifth to four fifths of the audio's length), US
// English only. Why this engine, and how accurate it is: docs/tracks-and-captions.md, Auto-generated captions.

const INSTALL = 'install the Debian packages pocketsphinx and pocketsphinx-en-us (apt-get install pocketsphinx pocketsphinx-en-us)';
// What /bin/sh answers when it cannot exec the command (background launches go through it).
const COMMAND_NOT_FOUND = 127;
const COMMAND_NOT_EXECUTABLE = 126;

const exists = async (filePath: string) => (await stat(filePath).catch(() => null)) !== null;

const checkModel = async (modelDir: string) => {
  const model = pocketsphinxModelFiles(modelDir);
  const missing = [`${model.acousticModel}/mdef`, model.languageModel, model.dictionary];
  for (const file of missing) {
    if (!(await exists(file))) {
      throw new SpeechEngineUnavailableError(`Auto-generated captions are not available on this server: the speech model is missing (${file}); ${INSTALL}`);
    }
  }
};

const lastError = (stderr: string): string =>
  stderr
    .split(/\r?\n/)
    .filter((line) => /^(ERROR|FATAL)/.test(line))
    .at(-1)
    ?.trim() ?? stderr.trim().split(/\r?\n/).at(-1) ?? '';

export const pocketsphinxRecognizer = ({ path: binary, modelDir }: { path: string; modelDir: string }): SpeechRecognizer => ({
  name: 'PocketSphinx',
  languages: ['en'],
  transcribe: async ({ wavPath, signal, timeoutMs }) => {
    await checkModel(modelDir);
    const notInstalled = (cause?: unknown) =>
      new SpeechEngineUnavailableError(`Auto-generated captions are not available on this server: ${binary} could not be run; ${INSTALL}`, { cause });
    let result;
    try {
      result = await runProcess({ command: binary, args: buildPocketsphinxArgs({ wavPath, modelDir }), signal, timeoutMs, background: true, children: childProcesses() });
    } catch (error) {
      throw notInstalled(error);
    }
    if (result.aborted) throw abortError(signal);
    if (result.timedOut) throw new Error(`speech recognition did not finish within ${Math.round(timeoutMs / 1000)} s`);
    if (result.exitCode === COMMAND_NOT_FOUND || result.exitCode === COMMAND_NOT_EXECUTABLE) throw notInstalled();
    if (result.exitCode !== 0) throw new Error(`speech recognition failed (${result.signal ?? `exit ${result.exitCode}`}): ${lastError(result.stderr)}`);
    return parsePocketsphinxWords(result.stdout);
  },
});
