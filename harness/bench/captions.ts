import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildCaptionCues } from '../../lib/media/captions/caption-cues';
import { DEFAULT_POCKETSPHINX_MODEL_DIR } from '../../lib/media/captions/pocketsphinx';
import { renderTranscript } from '../../lib/media/text/cues';
import { pocketsphinxRecognizer } from '../../lib/services/captions/pocketsphinx-recognizer';
import { extractSpeechAudio } from '../../lib/services/captions/speech-audio';
import { recognitionTimeoutMs } from '../../lib/services/captions/transcribe-captions';
import { runCommand } from '../processes';
import { childCpuSeconds } from './proc-stat';
import { makeSpeechClip } from '../speech-fixtures';
import { errorMessage, median, round } from '../stats';
import { wordErrorRate, type WordErrorRate } from '../word-error-rate';

// Caption generation speed: the server's own pipeline (the WAV extraction and the PocketSphinx run,
// both at background priority as in production, then the cue builder) on speech made with festival's
// HTS voice and on a real film clip (friday.mp4 from the shared media, when present), and on one
// second of silence, which is the engine's fixed cost (loading its model). CPU seconds are those of
// the child processes (their user + system time, from /proc/self/stat as they are reaped), so the
// other work on a shared machine does not count; wall-clock time does include waiting for the CPU.

export type CaptionsRun = { wallMs: number; cpuSeconds: number; extractCpuSeconds: number; recognizeCpuSeconds: number; words: number; cues: number };

export type CaptionsInputResult = {
  label: string;
  file: string;
  audioSeconds: number;
  runs: CaptionsRun[];
  median: {
    wallMs: number | null;
    cpuSeconds: number | null;
    extractCpuSeconds: number | null;
    recognizeCpuSeconds: number | null;
    cpuSecondsPerAudioSecond: number | null;
    wallSecondsPerAudioSecond: number | null;
  };
  /** Against the known script or the clip's published captions; null without a reference. */
  wer: WordErrorRate | null;
  transcript: string;
};

export type CaptionsResult = { engine: string; runsPerInput: number; inputs: CaptionsInputResult[]; skipped: Array<{ label: string; reason: string }> };

// The reference text of a WebVTT file: its cue payloads without markup.
const vttText = (vtt: string): string =>
  vtt
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '' && line.trim() !== 'WEBVTT' && !line.includes('-->') && !/^\d+$/.test(line.trim()))
    .map((line) => line.replace(/<[^>]*>/g, ''))
    .join(' ');

const measureInput = async ({
  label,
  file,
  reference,
  workDir,
  runs,
  log,
}: {
  label: string;
  file: string;
  reference: string | null;
  workDir: string;
  runs: number;
  log: (line: string) => void;
}): Promise<CaptionsInputResult> => {
  const recognizer = pocketsphinxRecognizer({ path: 'pocketsphinx_continuous', modelDir: DEFAULT_POCKETSPHINX_MODEL_DIR });
  const samples: CaptionsRun[] = [];
  let audioSeconds = 0;
  let transcript = '';
  for (let run = 0; run < runs; run++) {
    const wavPath = path.join(workDir, 'speech.wav');
    const signal = new AbortController().signal;
    const cpuAtStart = childCpuSeconds();
    const startedAt = performance.now();
    try {
      audioSeconds = await extractSpeechAudio({ ffmpegPath: 'ffmpeg', input: file, audioStreamIndex: 0, outputPath: wavPath, signal });
      const cpuAfterExtract = childCpuSeconds();
      const words = await recognizer.transcribe({ wavPath, signal, timeoutMs: recognitionTimeoutMs(audioSeconds) });
      const cues = buildCaptionCues(words, { mediaEndSeconds: audioSeconds });
      const wallMs = performance.now() - startedAt;
      const cpuAtEnd = childCpuSeconds();
      transcript = renderTranscript(cues);
      samples.push({
        wallMs: round(wallMs, 0),
        cpuSeconds: round(cpuAtEnd - cpuAtStart, 2),
        extractCpuSeconds: round(cpuAfterExtract - cpuAtStart, 2),
        recognizeCpuSeconds: round(cpuAtEnd - cpuAfterExtract, 2),
        words: words.length,
        cues: cues.length,
      });
      log(`captions: ${label} run ${run + 1}/${runs}: ${round(wallMs / 1000, 1)} s wall, ${round(cpuAtEnd - cpuAtStart, 2)} CPU s, ${words.length} words`);
    } finally {
      rmSync(wavPath, { force: true });
    }
  }
  const middle = (pick: (run: CaptionsRun) => number) => median(samples.map(pick));
  const cpuSeconds = middle((run) => run.cpuSeconds);
  const wallMs = middle((run) => run.wallMs);
  return {
    label,
    file,
    audioSeconds: round(audioSeconds, 2),
    runs: samples,
    median: {
      wallMs,
      cpuSeconds,
      extractCpuSeconds: middle((run) => run.extractCpuSeconds),
      recognizeCpuSeconds: middle((run) => run.recognizeCpuSeconds),
      cpuSecondsPerAudioSecond: cpuSeconds === null || audioSeconds === 0 ? null : round(cpuSeconds / audioSeconds, 3),
      wallSecondsPerAudioSecond: wallMs === null || audioSeconds === 0 ? null : round(wallMs / 1000 / audioSeconds, 3),
    },
    wer: reference === null ? null : wordErrorRate(reference, transcript),
    transcript,
  };
};

export const measureCaptions = async ({
  workDir,
  sharedMediaDir,
  runs,
  log,
}: {
  workDir: string;
  sharedMediaDir: string;
  runs: number;
  log: (line: string) => void;
}): Promise<CaptionsResult> => {
  const dir = path.join(workDir, 'captions');
  mkdirSync(dir, { recursive: true });
  const inputs: CaptionsInputResult[] = [];
  const skipped: CaptionsResult['skipped'] = [];

  const silence = path.join(dir, 'silence-1s.m4a');
  const made = await runCommand('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=mono', '-t', '1', '-c:a', 'aac', silence], { timeoutMs: 60_000 });
  if (made.code !== 0) throw new Error(`making 1 s of silence failed: ${made.stderr.slice(-300)}`);
  inputs.push(await measureInput({ label: 'silence 1 s (fixed cost)', file: silence, reference: null, workDir: dir, runs, log }));

  try {
    const clip = await makeSpeechClip({ voice: 'festival-hts', outputPath: path.join(dir, 'speech-festival-hts.mp4') });
    inputs.push(await measureInput({ label: 'festival HTS voice (synthetic speech, 4 s pause)', file: clip.path, reference: clip.reference, workDir: dir, runs, log }));
  } catch (error) {
    skipped.push({ label: 'festival HTS voice', reason: `${errorMessage(error)} (npm run setup:system -- speech-synthesis)` });
  }

  const friday = path.join(sharedMediaDir, 'friday.mp4');
  const fridayVtt = path.join(sharedMediaDir, 'friday.vtt');
  if (existsSync(friday)) {
    const reference = existsSync(fridayVtt) ? vttText(readFileSync(fridayVtt, 'utf8')) : null;
    inputs.push(await measureInput({ label: 'friday.mp4 (1940 film dialogue)', file: friday, reference, workDir: dir, runs, log }));
  } else {
    skipped.push({ label: 'friday.mp4', reason: `not found in ${sharedMediaDir}` });
  }
  return { engine: 'PocketSphinx 5prealpha (Debian pocketsphinx + pocketsphinx-en-us), nice 19', runsPerInput: runs, inputs, skipped };
};
