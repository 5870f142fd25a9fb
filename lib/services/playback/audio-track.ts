import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { getEnv } from '../../env';
import { withAssetCancellation } from '../../jobs/signals';
import { getLogger } from '../../log';
import { Fmp4StreamSplitter } from '../../media/fmp4';
import { AUDIO_SEGMENT_SECONDS } from '../../media/hls/audio-plan';
import { buildAudioTrackArgs } from '../../media/hls/encode-args';
import { lowerPriority, runProcess } from '../../media/run-process';
import {
  initSegmentPath,
  isStoredFile,
  mediaSegmentPath,
  renditionCompletePath,
} from '../../storage/asset-files';
import { sourceInput } from '../ingest/source-input';
import { processSingleton } from '../../utils/process-singleton';
import type { PlaybackPlan } from './playback-plan';
import { publishFile } from './publish-file';

// The audio rendition is one continuous AAC encode of the whole track, published fragment by
// fragment as ffmpeg writes them, so there is no priming gap or overlap at any segment boundary.
// It runs at many times real time; a request for a segment it has not reached yet waits for it.

export const AUDIO_RENDITION = 'audio';
const ENCODE_TIMEOUT_MS = 6 * 60 * 60_000;
const SEGMENT_WAIT_MS = 120_000;
// How far ahead of the start the encode runs at normal priority before yielding the CPU.
const PRIORITY_LEAD_SECONDS = 20;

type AudioEncode = { done: Promise<void>; progress: EventEmitter };

const runningEncodes = () => processSingleton('audio-encodes', () => new Map<string, AudioEncode>());


export const readAudioSegmentCount = async (assetId: string): Promise<number | null> => {
  try {
    const marker = JSON.parse(await readFile(renditionCompletePath(getEnv().dataDir, assetId, AUDIO_RENDITION), 'utf8')) as {
      segments: number;
    };
    return marker.segments;
  } catch {
    return null;
  }
};

const runAudioEncode = async (assetId: string, plan: PlaybackPlan, progress: EventEmitter): Promise<void> => {
  const audio = plan.audio;
  if (!audio) throw new Error('the asset has no audio track');
  await withAssetCancellation(assetId, undefined, (signal) => encodeAndPublish(assetId, audio.duration, progress, signal));
};

const encodeAndPublish = async (assetId: string, duration: number, progress: EventEmitter, signal: AbortSignal) => {
  const env = getEnv();
  let written = Promise.resolve();
  let segments = 0;
  let encoderPid: number | undefined;
  // Nothing more is written once the asset is deleted, so its folder is not recreated.
  const publishInOrder = (target: string, data: Buffer, onDone: () => void) => {
    written = written.then(async () => {
      if (signal.aborted) return;
      await publishFile(target, data);
      onDone();
    });
  };
  const splitter = new Fmp4StreamSplitter({
    onInit: (init) => publishInOrder(initSegmentPath(env.dataDir, assetId, AUDIO_RENDITION), init, () => progress.emit('init')),
    onFragment: (fragment, index) => {
      segments = index + 1;
      // A starting player needs the first seconds now; the rest of the track, far ahead of any
      // player, yields the CPU to the video segments viewers are waiting for (a cold playback
      // overlaps this encode for its first several seconds).
      if (encoderPid !== undefined && segments * AUDIO_SEGMENT_SECONDS >= PRIORITY_LEAD_SECONDS) {
        lowerPriority(encoderPid);
        encoderPid = undefined;
      }
      publishInOrder(mediaSegmentPath(env.dataDir, assetId, AUDIO_RENDITION, index), fragment, () =>
        progress.emit('segment', index),
      );
    },
  });
  const result = await runProcess({
    command: env.ffmpegPath,
    args: buildAudioTrackArgs({ inputPath: await sourceInput(assetId), durationSeconds: duration }),
    timeoutMs: ENCODE_TIMEOUT_MS,
    signal,
    onSpawn: (pid) => {
      encoderPid = pid;
    },
    onStdout: (chunk) => splitter.push(chunk),
  });
  await written;
  if (signal.aborted) throw new Error(`asset ${assetId} was deleted`);
  if (result.exitCode !== 0) {
    throw new Error(`ffmpeg audio encode failed (${result.signal ?? result.exitCode}): ${result.stderr.trim().slice(-500)}`);
  }
  splitter.end();
  await publishFile(
    renditionCompletePath(env.dataDir, assetId, AUDIO_RENDITION),
    Buffer.from(JSON.stringify({ segments, segmentSeconds: AUDIO_SEGMENT_SECONDS })),
  );
};

// Starts the audio encode unless it is complete or already running in this process.
export const ensureAudioEncoding = async ({ assetId, plan }: { assetId: string; plan: PlaybackPlan }): Promise<AudioEncode | null> => {
  const running = runningEncodes().get(assetId);
  if (running) return running;
  if ((await readAudioSegmentCount(assetId)) !== null) return null;
  const progress = new EventEmitter();
  progress.setMaxListeners(0);
  const done = runAudioEncode(assetId, plan, progress)
    .catch((error: unknown) => {
      getLogger().error({ err: error, assetId }, 'audio encode failed');
      throw error;
    })
    .finally(() => {
      runningEncodes().delete(assetId);
      progress.emit('end');
    });
  done.catch(() => undefined);
  const encode = { done, progress };
  runningEncodes().set(assetId, encode);
  return encode;
};

// Waits until the audio segment (or init segment, index null) is published.
export const waitForAudioFile = async ({
  assetId,
  plan,
  index,
}: {
  assetId: string;
  plan: PlaybackPlan;
  index: number | null;
}): Promise<string | null> => {
  const env = getEnv();
  const target =
    index === null
      ? initSegmentPath(env.dataDir, assetId, AUDIO_RENDITION)
      : mediaSegmentPath(env.dataDir, assetId, AUDIO_RENDITION, index);
  if (await isStoredFile(target)) return target;
  const encode = await ensureAudioEncoding({ assetId, plan });
  if (!encode) return (await isStoredFile(target)) ? target : null;
  await new Promise<void>((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      encode.progress.off('segment', onSegment);
      encode.progress.off('init', onInit);
      encode.progress.off('end', finish);
      resolve();
    };
    const onSegment = (written: number) => index !== null && written >= index && finish();
    const onInit = () => index === null && finish();
    const timer = setTimeout(finish, SEGMENT_WAIT_MS);
    encode.progress.on('segment', onSegment);
    encode.progress.on('init', onInit);
    encode.progress.on('end', finish);
    // It may have been written between the first check and subscribing.
    void isStoredFile(target).then((exists) => exists && finish());
  });
  return (await isStoredFile(target)) ? target : null;
};
