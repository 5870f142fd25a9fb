import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { buildCaptionCues } from '../../media/captions/caption-cues';
import type { RecognizedWord, SpeechRecognizer } from '../../media/captions/speech-recognizer';
import type { Cue } from '../../media/text/cues';
import { extractSpeechAudio } from './speech-audio';

// One audio stream → caption cues: decode it to a temporary WAV in `workDir`, recognise it, cut
// the words into cues. The WAV (115 MB an hour) is removed whatever happens, and one left by a run
// that died with its process is removed by the next.

const SPEECH_WAV = /^\.speech-[0-9a-f]+\.wav$/;

export type CaptionsTranscript = { cues: Cue[]; words: RecognizedWord[]; audioSeconds: number };

// Generous: the engine needs up to about one CPU-second per audio second, and at background
// priority it gets what viewers' encodes leave.
export const recognitionTimeoutMs = (audioSeconds: number): number => 10 * 60_000 + Math.ceil(audioSeconds * 10_000);

export const transcribeCaptions = async ({
  ffmpegPath,
  input,
  audioStreamIndex,
  workDir,
  recognizer,
  signal,
}: {
  ffmpegPath: string;
  input: string;
  audioStreamIndex: number;
  workDir: string;
  recognizer: SpeechRecognizer;
  signal: AbortSignal;
}): Promise<CaptionsTranscript> => {
  await mkdir(workDir, { recursive: true });
  for (const leftover of (await readdir(workDir)).filter((name) => SPEECH_WAV.test(name))) await rm(path.join(workDir, leftover), { force: true });
  const wavPath = path.join(workDir, `.speech-${randomBytes(6).toString('hex')}.wav`);
  try {
    const audioSeconds = await extractSpeechAudio({ ffmpegPath, input, audioStreamIndex, outputPath: wavPath, signal });
    const words = await recognizer.transcribe({ wavPath, signal, timeoutMs: recognitionTimeoutMs(audioSeconds) });
    return { words, audioSeconds, cues: buildCaptionCues(words, { mediaEndSeconds: audioSeconds }) };
  } finally {
    await rm(wavPath, { force: true });
  }
};
