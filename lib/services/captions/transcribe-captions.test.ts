import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { synthesizeSpeech } from '../../../harness/speech-fixtures';
import { DEFAULT_POCKETSPHINX_MODEL_DIR } from '../../media/captions/pocketsphinx';
import { SpeechEngineUnavailableError } from '../../media/captions/speech-recognizer';
import { childProcesses } from '../processes/child-processes';
import { aac, ffmpeg, FFMPEG } from '../../media/test-support/media-fixtures';
import { pocketsphinxRecognizer } from './pocketsphinx-recognizer';
import { transcribeCaptions } from './transcribe-captions';

const activeProcessCount = () => childProcesses().size;

// The real engine (Debian pocketsphinx) on real synthetic speech (festival's HTS voice): one
// sentence after two seconds of silence, in the second audio stream of an M4A, so the stream is
// chosen and the times are on the file's timeline.

const SENTENCE = 'Thank you for watching, and we will see you again next week.';
const engine = pocketsphinxRecognizer({ path: 'pocketsphinx_continuous', modelDir: DEFAULT_POCKETSPHINX_MODEL_DIR });

let dir: string;
let clip: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-captions-test-'));
  const speech = path.join(dir, 'sentence.wav');
  await synthesizeSpeech({ voice: 'festival-hts', text: SENTENCE, outputPath: speech });
  clip = path.join(dir, 'two-streams.m4a');
  // Stream 0: a tone (nothing to transcribe); stream 1: silence, then the sentence.
  await ffmpeg(
    '-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=48000:duration=6',
    '-i', speech,
    '-filter_complex', '[1:a]aresample=48000,adelay=2000:all=1[delayed]',
    '-map', '0:a', '-map', '[delayed]', ...aac, clip,
  );
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const transcribe = (options: Partial<Parameters<typeof transcribeCaptions>[0]> = {}) =>
  transcribeCaptions({
    ffmpegPath: FFMPEG,
    input: clip,
    audioStreamIndex: 1,
    workDir: path.join(dir, 'work'),
    recognizer: engine,
    signal: new AbortController().signal,
    ...options,
  });

describe('transcribeCaptions with PocketSphinx', () => {
  test('the chosen stream’s words, timed on the file’s timeline, as one cue; the temporary WAV is removed, and one left behind too', async () => {
    await mkdir(path.join(dir, 'work'), { recursive: true });
    await writeFile(path.join(dir, 'work', '.speech-0123abcd.wav'), 'left by a run that died');
    const { words, cues, audioSeconds } = await transcribe();
    expect(words.map((word) => word.word).join(' ')).toBe('thank you for watching and we will see you again next week');
    expect(words[0]!.start).toBeGreaterThanOrEqual(1.9);
    expect(audioSeconds).toBeGreaterThan(4);
    expect(cues).toHaveLength(1);
    expect(cues[0]!.start).toBe(words[0]!.start);
    expect(cues[0]!.text.split('\n').length).toBe(2);
    expect(await readdir(path.join(dir, 'work'))).toEqual([]);
  });

  test('a stream with no speech (a steady tone) gives no words and no cues', async () => {
    const { words, cues } = await transcribe({ audioStreamIndex: 0 });
    expect(words).toEqual([]);
    expect(cues).toEqual([]);
  });

  test('a binary that is not installed: SpeechEngineUnavailableError saying what to install', async () => {
    const missing = pocketsphinxRecognizer({ path: '/nonexistent/pocketsphinx_continuous', modelDir: DEFAULT_POCKETSPHINX_MODEL_DIR });
    const failure = transcribe({ recognizer: missing });
    await expect(failure).rejects.toBeInstanceOf(SpeechEngineUnavailableError);
    await expect(failure).rejects.toThrow(/pocketsphinx pocketsphinx-en-us/);
    expect(await readdir(path.join(dir, 'work'))).toEqual([]);
  });

  test('a model folder without the model: SpeechEngineUnavailableError naming the missing file', async () => {
    const noModel = pocketsphinxRecognizer({ path: 'pocketsphinx_continuous', modelDir: dir });
    await expect(transcribe({ recognizer: noModel })).rejects.toThrow(/speech model is missing .*mdef.*pocketsphinx-en-us/);
  });

  test('a stream that does not exist fails with ffmpeg’s reason', async () => {
    await expect(transcribe({ audioStreamIndex: 5 })).rejects.toThrow(/decoding the audio failed/);
  });

  test('aborting stops the engine and leaves nothing behind', async () => {
    const controller = new AbortController();
    const running = transcribe({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('asset deleted')), 50);
    await expect(running).rejects.toThrow('asset deleted');
    expect(activeProcessCount()).toBe(0);
    expect(await readdir(path.join(dir, 'work'))).toEqual([]);
  });
});
