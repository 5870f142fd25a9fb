import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { getEnv } from '../../env';
import { withAssetCancellation } from '../../jobs/signals';
import { getLogger } from '../../log';
import { Fmp4StreamSplitter } from '../../media/fmp4';
import { AUDIO_SEGMENT_SECONDS } from '../../media/hls/audio-plan';
import { buildAudioTrackArgs } from '../../media/hls/encode-args';
import { cpuSecondsFromReport, problemsInReport, withCpuReport } from '../../media/cpu-report';
import { inputReadFailure } from '../../media/input-read-failure';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';
import {
  audioTrackSourcePath,
  initSegmentPath,
  isStoredFile,
  mediaSegmentPath,
  renditionCompletePath,
} from '../../storage/asset-files';
import type { ScheduledWork, WorkAttempt } from '../../utils/deadline-scheduler';
import { sourceInput } from '../inputs/source-input';
import { isMarkerStored, isStoredHereOrInReachableBucket, isStoredHereOrShared, shareFile, sharedStore } from '../storage/shared-storage';
import { forgetAudioSegmentsWanted, noteAudioSegmentWanted, paceAudioEncode, type AudioPacer } from './audio-pacing';
import { expectedEncodeMs, recordEncodeCost } from './encode-costs';
import { playbackState } from './playback-state';
import { PRIMARY_AUDIO_RENDITION } from '../../media/names';
import type { AudioRendition } from './audio-renditions';
import { publishFile } from '../../storage/atomic-file';
import { encoderScheduler, type EncodeKind } from './runtime';

// Each audio rendition (one per ready audio track, see audio-renditions.ts) is one continuous AAC
// encode of the whole track, published fragment by fragment as ffmpeg writes them, so there is no
// priming gap or overlap at any segment boundary. It runs at many times real time; a request for a
// segment it has not reached yet waits for it. Tracks are encoded independently: a viewer who
// switches to another language starts (or joins) that track's encode, paced by its own requests.
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

const ENCODE_TIMEOUT_MS = 6 * 60 * 60_000;
const SEGMENT_WAIT_MS = 120_000;
// Every audio track costs the same per second (one AAC encode of 48 kHz stereo at most): one
// measurement and one metrics label for all of them, not one per track.
const AUDIO_COST_KEY = PRIMARY_AUDIO_RENDITION;

type AudioEncode = {
  assetId: string;
  rendition: string;
  done: Promise<void>;
  progress: EventEmitter;
  work: ScheduledWork<void, EncodeKind>;
  /** Cancels it for good (its track was deleted): not a failure. */
  stop: (reason: Error) => void;
};

declare module './playback-state' {
  interface PlaybackState {
    /** Running or queued, by audioEncodeKey. */
    audioEncodes: Map<string, AudioEncode>;
  }
}

const runningEncodes = () => playbackState().audioEncodes;

/** One audio track's encode, among every asset's. */
export const audioEncodeKey = (assetId: string, rendition: string): string => `${assetId}/${rendition}`;

export const readAudioSegmentCount = async (assetId: string, rendition: string = PRIMARY_AUDIO_RENDITION): Promise<number | null> => {
  const markerPath = renditionCompletePath(getEnv().dataDir, assetId, rendition);
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

const runAudioEncode = async (assetId: string, rendition: AudioRendition, progress: EventEmitter, attempt: WorkAttempt): Promise<void> => {
  const { cpuSeconds } = await withAssetCancellation(assetId, attempt.signal, (signal) =>
    encodeAndPublish(assetId, rendition, progress, signal, attempt.background),
  );
  forgetAudioSegmentsWanted(audioEncodeKey(assetId, rendition.name));
  // CPU time, like the video rungs' (see encode-costs.ts): paused or waiting time is no cost.
  if (cpuSeconds !== null) recordEncodeCost({ rung: AUDIO_COST_KEY, cpuSeconds, mediaSeconds: rendition.duration });
};

// An added audio file is read from this node's disk, copied there from the bucket first with S3.
const renditionInput = async (assetId: string, rendition: AudioRendition): Promise<string> => {
  if (rendition.input.kind === 'source') return sourceInput(assetId);
  const file = audioTrackSourcePath(getEnv().dataDir, assetId, rendition.input.trackId);
  if (await isStoredHereOrShared(file)) return file;
  throw new Error(`the audio file of track ${rendition.input.trackId} is not stored`);
};

const videoWorkPending = (): boolean => {
  const { queued, running } = encoderScheduler().countByKind();
  return (['onDemand', 'prefetch'] as const).some((kind) => (queued.get(kind) ?? 0) + (running.get(kind) ?? 0) > 0);
};

const encodeAndPublish = async (
  assetId: string,
  rendition: AudioRendition,
  progress: EventEmitter,
  signal: AbortSignal,
  background: boolean,
): Promise<{ cpuSeconds: number | null }> => {
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
    onInit: (init) => publishInOrder(initSegmentPath(env.dataDir, assetId, rendition.name), init, () => progress.emit('init')),
    onFragment: (fragment, index) => {
      segments = index + 1;
      publishInOrder(mediaSegmentPath(env.dataDir, assetId, rendition.name, index), fragment, () =>
        progress.emit('segment', index),
      );
    },
  });
  // A run at nice 19 already gives way to everything; one a viewer waits for is paced.
  let pacer: AudioPacer | undefined;
  const checkPace = () => pacer?.check();
  progress.on('wanted', checkPace);
  const args = withCpuReport(
    buildAudioTrackArgs({
      inputPath: await renditionInput(assetId, rendition),
      durationSeconds: rendition.duration,
      streamIndex: rendition.input.kind === 'source' ? rendition.input.streamIndex : 0,
      channels: rendition.channels,
      padToDuration: rendition.input.kind === 'added',
    }),
  );
  const result = await runProcess({
    command: env.ffmpegPath,
    args,
    timeoutMs: ENCODE_TIMEOUT_MS,
    signal,
    background,
    onSpawn: (pid) => {
      if (!background) pacer = paceAudioEncode({ trackKey: audioEncodeKey(assetId, rendition.name), pid, written: () => segments, videoWorkPending });
    },
    onStdout: (chunk) => splitter.push(chunk),
    children: childProcesses(),
  }).finally(() => {
    progress.off('wanted', checkPace);
  });
  pacer?.stop();
  await written;
  if (signal.aborted) throw new Error(`the ${rendition.name} encode of asset ${assetId} was stopped`);
  const unread = inputReadFailure(args, result.stderr);
  if (unread) throw unread;
  if (result.exitCode !== 0) {
    throw new Error(`ffmpeg audio encode failed (${result.signal ?? result.exitCode}): ${problemsInReport(result.stderr).trim().slice(-500)}`);
  }
  splitter.end();
  const markerPath = renditionCompletePath(env.dataDir, assetId, rendition.name);
  const marker = Buffer.from(JSON.stringify({ segments, segmentSeconds: AUDIO_SEGMENT_SECONDS }));
  await publishFile(markerPath, marker);
  // With S3, a node that finds the marker in the bucket must find every segment there too;
  // without it, other nodes encode the track themselves.
  if (sharing && (await Promise.all(uploads)).every(Boolean)) await shareFile(markerPath, marker);
  return { cpuSeconds: cpuSecondsFromReport(result.stderr) };
};

// Starts the track's encode unless it is complete or already running (or queued) in this process.
// `deadline` (epoch ms): a viewer needs a part of the track not written yet by then, so the encode
// becomes deadline work and starts at once; without one it is queued as idle work.
export const ensureAudioEncoding = async ({
  assetId,
  rendition,
  deadline,
}: {
  assetId: string;
  rendition: AudioRendition;
  deadline?: number;
}): Promise<AudioEncode | null> => {
  const key = audioEncodeKey(assetId, rendition.name);
  const running = runningEncodes().get(key);
  if (running) {
    if (deadline !== undefined) running.work.hasten('deadline', deadline);
    return running;
  }
  if ((await readAudioSegmentCount(assetId, rendition.name)) !== null) return null;
  const again = runningEncodes().get(key);
  if (again) return again;
  const progress = new EventEmitter();
  progress.setMaxListeners(0);
  const work = encoderScheduler().submit({
    kind: 'audio',
    workClass: deadline === undefined ? 'idle' : 'deadline',
    deadline: deadline ?? Number.POSITIVE_INFINITY,
    slotlessWhenUrgent: true,
    label: key,
    subject: { rung: AUDIO_COST_KEY, forBackgroundRungs: false },
    costMs: expectedEncodeMs(AUDIO_COST_KEY, rendition.duration),
    // Judged per segment by the viewers waiting for them (waitForAudioFile), not by when the
    // whole track is done.
    judgeByFinish: false,
    run: (attempt) => runAudioEncode(assetId, rendition, progress, attempt),
  });
  let stopped = false;
  const done = work.done
    .catch((error: unknown) => {
      if (stopped) getLogger().info({ assetId, rendition: rendition.name, reason: (error as Error).message }, 'audio encode stopped');
      else getLogger().error({ err: error, assetId, rendition: rendition.name }, 'audio encode failed');
      throw error;
    })
    .finally(() => {
      if (runningEncodes().get(key)?.work === work) runningEncodes().delete(key);
      progress.emit('end');
    });
  done.catch(() => undefined);
  const stop = (reason: Error) => {
    stopped = true;
    work.cancel(reason);
  };
  const encode = { assetId, rendition: rendition.name, done, progress, work, stop };
  runningEncodes().set(key, encode);
  return encode;
};

/** The asset's audio renditions being encoded (or queued) in this process. */
export const audioRenditionsEncoding = (assetId: string): string[] =>
  [...runningEncodes().values()].filter((encode) => encode.assetId === assetId).map((encode) => encode.rendition);

/**
 * Stops this process's encodes of the asset's audio renditions named (their track was deleted),
 * queued or running, and resolves once they have stopped writing.
 */
export const stopAudioEncodes = async (assetId: string, renditions: string[]): Promise<void> => {
  const stopping = [...runningEncodes().values()].filter((encode) => encode.assetId === assetId && renditions.includes(encode.rendition));
  for (const encode of stopping) encode.stop(new Error(`the ${encode.rendition} track of asset ${assetId} was deleted`));
  await Promise.all(stopping.map((encode) => encode.done.catch(() => undefined)));
};

// Waits until the track's segment (or init segment, index null) is published. `deadline`: when the
// viewer asking needs it (see viewer-streams.ts); a segment written after it counts as a miss.
export const waitForAudioFile = async ({
  assetId,
  rendition,
  index,
  deadline,
}: {
  assetId: string;
  rendition: AudioRendition;
  index: number | null;
  deadline?: number;
}): Promise<string | null> => {
  const env = getEnv();
  const target =
    index === null
      ? initSegmentPath(env.dataDir, assetId, rendition.name)
      : mediaSegmentPath(env.dataDir, assetId, rendition.name, index);
  if (index !== null) noteAudioSegmentWanted(audioEncodeKey(assetId, rendition.name), index);
  if (await isStoredHereOrInReachableBucket(target)) return target;
  const askedAt = Date.now();
  const encode = await ensureAudioEncoding({ assetId, rendition, deadline: deadline ?? askedAt });
  if (!encode) return (await isStoredHereOrInReachableBucket(target)) ? target : null;
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
