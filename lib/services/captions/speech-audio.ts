import { stat } from 'node:fs/promises';
import { abortError, summariseToolError } from '../../media/media-errors';
import { buildSpeechAudioArgs, speechAudioSeconds } from '../../media/captions/speech-audio-args';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';

// Decoding an audio stream to the WAV speech engines read, at background priority.

// Decoding is far faster than real time; this only catches a stuck read (a source on a stalled URL).
const EXTRACT_TIMEOUT_MS = 6 * 60 * 60_000;

/** Writes `outputPath`; returns the audio's length in seconds. */
export const extractSpeechAudio = async ({
  ffmpegPath,
  input,
  audioStreamIndex,
  outputPath,
  signal,
}: {
  ffmpegPath: string;
  input: string;
  audioStreamIndex: number;
  outputPath: string;
  signal: AbortSignal;
}): Promise<number> => {
  const result = await runProcess({
    command: ffmpegPath,
    args: buildSpeechAudioArgs({ input, audioStreamIndex, outputPath }),
    signal,
    timeoutMs: EXTRACT_TIMEOUT_MS,
    background: true,
    children: childProcesses(),
  });
  if (result.aborted) throw abortError(signal);
  if (result.timedOut) throw new Error(`decoding the audio did not finish within ${EXTRACT_TIMEOUT_MS / 60_000} min`);
  if (result.exitCode !== 0) {
    throw new Error(`decoding the audio failed: ${summariseToolError(result.stderr, input) ?? `exit ${result.signal ?? result.exitCode}`}`);
  }
  return speechAudioSeconds((await stat(outputPath)).size);
};
