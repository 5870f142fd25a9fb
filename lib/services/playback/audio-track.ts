import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { getEnv } from '../../env';
import { withAssetCancellation } from '../../jobs/signals';
import { getLogger } from '../../log';
import { Fmp4StreamSplitter } from '../../media/fmp4';
import { AUDIO_SEGMENT_SECONDS } from '../../media/hls/audio-plan';
import { buildAudioTrackArgs } from '../../media/hls/encode-args';
import { runProcess } from '../../media/run-process';
import {
  initSegmentPath,
  isStoredFile,
  mediaSegmentPath,
  renditionCompletePath,
} from '../../storage/asset-files';
import type { ScheduledWork, WorkAttempt } from '../../utils/deadline-scheduler';
import { sourceInput } from '../ingest/source-input';
import { isMarkerStored, isStoredHereOrShared, shareFile, sharedStore } from '../storage/shared-storage';
import { processSingleton } from '../../utils/process-singleton';
import { forgetAudioSegmentsWanted, noteAudioSegmentWanted, paceAudioEncode, type AudioPacer } from './audio-pacing';
import { encodeCostPerMediaSecond, recordEncodeCost } from './encode-costs';
import type { PlaybackPlan } from './playback-plan';
import { publishFile } from '../../storage/atomic-file';
import { encoderScheduler, type EncodeKind } from './runtime';

// The audio rendition is one continuous AAC encode of the whole track, published fragment by
// fragment as ffmpeg writes them, so there is no priming gap or overlap at any segment boundary.
// It runs at many times real time; a request for a segment it has not reached yet waits for it.
//
// It goes through the encoder scheduler like every other ffmpeg of playback. It used to drop to
// nice 19 after its first 20 s, and a nice value cannot be raised again without privileges, so
// under load every viewer's next audio segment then waited behind every video encode, including
// prefetches nobody waited for yet. Measured with the production arguments, the whole track is
// cheap: a 300 s track takes 4.5 s of CPU (1.5 % of its duration; a 4 s 540p video segment costs
// about as much as 100 s of audio). So:
// - right after the asset is ready, nobody waits for it: it is idle work, run at nice 19 on an
//   encoder no viewer needs, and stopped when one does (it then starts over later; a short track
//   is done in well under a second, long before that matters);
// - the moment a viewer asks for a part not written yet, it becomes deadline work that starts at
//   once at normal priority, beside the video slots rather than waiting for one (an encode
//   running at nice 19 is restarted at normal priority): a viewer's audio never waits for video.

export const AUDIO_RENDITION = 'audio';
const ENCODE_TIMEOUT_MS = 6 * 60 * 60_000;
const SEGMENT_WAIT_MS = 120_000;

type AudioEncode = { done: Promise<void>; progress: EventEmitter; work: ScheduledWork<void, EncodeKind> };

const runningEncodes = () => processSingleton('audio-encodes', () => new Map<string, AudioEncode>());


export const readAudioSegmentCount = async (assetId: string): Promise<number | null> => {
  const markerPath = renditionCompletePath(getEnv().dataDir, assetId, AUDIO_RENDITION);
  if (sharedStore() !== null && !(await isMarkerStored(markerPath))) return null;
  try {
    const marker = JSON.parse(await readFile(markerPath, 'utf8')) as {
      segments: number;
    };
    return marker.segments;
  } catch {
    return null;
  }
};

const runAudioEncode = async (assetId: string, plan: PlaybackPlan, progress: EventEmitter, attempt: WorkAttempt): Promise<void> => {
  const audio = plan.audio;
  if (!audio) throw new Error('the asset has no audio track');
  const startedAt = performance.now();
  const { pausedMs } = await withAssetCancellation(assetId, attempt.signal, (signal) =>
    encodeAndPublish(assetId, audio.duration, progress, signal, attempt.background),
  );
  forgetAudioSegmentsWanted(assetId);
  // A nice-19 run's time says how busy the machine was, not what the track costs; paused time is no cost.
  const wallSeconds = (performance.now() - startedAt - pausedMs) / 1000;
  if (!attempt.background) recordEncodeCost({ rung: AUDIO_RENDITION, wallSeconds, mediaSeconds: audio.duration });
};

const videoWorkPending = (): boolean => {
  const { queued, running } = encoderScheduler().countByKind();
  return (['onDemand', 'prefetch'] as const).some((kind) => (queued.get(kind) ?? 0) + (running.get(kind) ?? 0) > 0);
};

const encodeAndPublish = async (
  assetId: string,
  duration: number,
  progress: EventEmitter,
  signal: AbortSignal,
  background: boolean,
): Promise<{ pausedMs: number }> => {
  const env = getEnv();
  let written = Promise.resolve();
  let segments = 0;
  // With S3: whether each fragment reached the bucket (failures are logged as they happen).
  const uploads: Array<Promise<boolean>> = [];
  const sharing = sharedStore() !== null;
  // Nothing more is written once the asset is deleted, so its folder is not recreated.
  const publishInOrder = (target: string, data: Buffer, onDone: () => void) => {
    written = written.then(async () => {
      if (signal.aborted) return;
      await publishFile(target, data);
      if (sharing) uploads.push(
        shareFile(target, data).then(
          () => true,
          (error: unknown) => {
            getLogger().warn({ err: error, target }, 'upload to the bucket failed');
            return false;
          },
        ),
      );
      onDone();
    });
  };
  const splitter = new Fmp4StreamSplitter({
    onInit: (init) => publishInOrder(initSegmentPath(env.dataDir, assetId, AUDIO_RENDITION), init, () => progress.emit('init')),
    onFragment: (fragment, index) => {
      segments = index + 1;
      publishInOrder(mediaSegmentPath(env.dataDir, assetId, AUDIO_RENDITION, index), fragment, () =>
        progress.emit('segment', index),
      );
    },
  });
  // A run at nice 19 already gives way to everything; one a viewer waits for is paced.
  let pacer: AudioPacer | undefined;
  const checkPace = () => pacer?.check();
  progress.on('wanted', checkPace);
  const result = await runProcess({
    command: env.ffmpegPath,
    args: buildAudioTrackArgs({ inputPath: await sourceInput(assetId), durationSeconds: duration }),
    timeoutMs: ENCODE_TIMEOUT_MS,
    signal,
    background,
    onSpawn: (pid) => {
      if (!background) pacer = paceAudioEncode({ assetId, pid, written: () => segments, videoWorkPending });
    },
    onStdout: (chunk) => splitter.push(chunk),
  }).finally(() => {
    progress.off('wanted', checkPace);
  });
  const pausedMs = pacer?.stop() ?? 0;
  await written;
  if (signal.aborted) throw new Error(`the audio encode of asset ${assetId} was stopped`);
  if (result.exitCode !== 0) {
    throw new Error(`ffmpeg audio encode failed (${result.signal ?? result.exitCode}): ${result.stderr.trim().slice(-500)}`);
  }
  splitter.end();
  const markerPath = renditionCompletePath(env.dataDir, assetId, AUDIO_RENDITION);
  const marker = Buffer.from(JSON.stringify({ segments, segmentSeconds: AUDIO_SEGMENT_SECONDS }));
  await publishFile(markerPath, marker);
  // With S3, a node that finds the marker in the bucket must find every segment there too;
  // without it, other nodes encode the track themselves.
  if (sharing && (await Promise.all(uploads)).every(Boolean)) await shareFile(markerPath, marker);
  return { pausedMs };
};

// Starts the audio encode unless it is complete or already running (or queued) in this process.
// `deadline` (epoch ms): a viewer needs a part of the track not written yet by then, so the encode
// becomes deadline work and starts at once; without one it is queued as idle work.
export const ensureAudioEncoding = async ({
  assetId,
  plan,
  deadline,
}: {
  assetId: string;
  plan: PlaybackPlan;
  deadline?: number;
}): Promise<AudioEncode | null> => {
  const running = runningEncodes().get(assetId);
  if (running) {
    if (deadline !== undefined) running.work.hasten('deadline', deadline);
    return running;
  }
  if ((await readAudioSegmentCount(assetId)) !== null) return null;
  const again = runningEncodes().get(assetId);
  if (again) return again;
  const progress = new EventEmitter();
  progress.setMaxListeners(0);
  const work = encoderScheduler().submit({
    kind: 'audio',
    workClass: deadline === undefined ? 'idle' : 'deadline',
    deadline: deadline ?? Number.POSITIVE_INFINITY,
    slotlessWhenUrgent: true,
    label: `${assetId}/audio`,
    subject: { rung: AUDIO_RENDITION, forBackgroundRungs: false },
    costMs: (encodeCostPerMediaSecond(AUDIO_RENDITION)?.secondsPerMediaSecond ?? 0) * (plan.audio?.duration ?? 0) * 1000,
    // Judged per segment by the viewers waiting for them (waitForAudioFile), not by when the
    // whole track is done.
    judgeByFinish: false,
    run: (attempt) => runAudioEncode(assetId, plan, progress, attempt),
  });
  const done = work.done
    .catch((error: unknown) => {
      getLogger().error({ err: error, assetId }, 'audio encode failed');
      throw error;
    })
    .finally(() => {
      runningEncodes().delete(assetId);
      progress.emit('end');
    });
  done.catch(() => undefined);
  const encode = { done, progress, work };
  runningEncodes().set(assetId, encode);
  return encode;
};

// Waits until the audio segment (or init segment, index null) is published. `deadline`: when the
// viewer asking needs it (see viewer-streams.ts); a segment written after it counts as a miss.
export const waitForAudioFile = async ({
  assetId,
  plan,
  index,
  deadline,
}: {
  assetId: string;
  plan: PlaybackPlan;
  index: number | null;
  deadline?: number;
}): Promise<string | null> => {
  const env = getEnv();
  const target =
    index === null
      ? initSegmentPath(env.dataDir, assetId, AUDIO_RENDITION)
      : mediaSegmentPath(env.dataDir, assetId, AUDIO_RENDITION, index);
  if (index !== null) noteAudioSegmentWanted(assetId, index);
  if (await isStoredHereOrShared(target)) return target;
  const askedAt = Date.now();
  const encode = await ensureAudioEncoding({ assetId, plan, deadline: deadline ?? askedAt });
  if (!encode) return (await isStoredHereOrShared(target)) ? target : null;
  encode.progress.emit('wanted');
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
  const found = await isStoredFile(target);
  if (found && deadline !== undefined && deadline > askedAt && Date.now() > deadline) encoderScheduler().recordMiss();
  return found ? target : null;
};
