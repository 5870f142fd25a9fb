import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { withAssetCancellation } from '../../jobs/signals';
import type { Rung } from '../../media/hls/ladder';
import { primaryVideo } from '../../media/media-summary';
import { probeMedia } from '../../media/probe-media';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';
import { buildStaticRemuxArgs } from '../../media/static/remux-args';
import { staticRenditionSource } from '../../media/static/static-rendition-source';
import { removeAssetFiles, staticRenditionPath } from '../../storage/asset-files';
import { shareFile } from '../storage/shared-storage';
import { removeStaticRenditionFiles } from './remove-static-rendition-files';
import { waitForAudioFile } from '../playback/audio-track';
import { PRIMARY_AUDIO_RENDITION } from '../../media/names';
import { audioRenditionOf } from '../playback/audio-renditions';
import type { PlaybackPlan } from '../playback/playback-plan';
import { ENCODE_PRIORITY } from '../playback/runtime';
import { ensureInitSegment, ensureVideoSegment } from '../playback/video-segments';
import { settleStaticRendition } from './settle-static-rendition';
import { untilAborted } from '../../utils/until-aborted';

// A static rendition is remuxed from what playback already makes: the rung's just-in-time
// segments (those already stored are reused; the others are encoded at background priority, so
// viewers' encodes come first) and the audio track's segments. Init + segments concatenated are a
// fragmented MP4; ffmpeg copies its streams into a progressive one with the index first. The cost
// is the segments not cached yet plus a copy, never a second encode of the whole asset.

const REMUX_TIMEOUT_MS = 30 * 60_000;
const PROBE_TIMEOUT_MS = 60_000;
// Segments asked for ahead of the one being appended: enough to keep every encoder busy.
const SEGMENTS_AHEAD = 4;


const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

// Reads a segment, asking for it again if the rendition cache evicted it in between.
const readEnsured = async (asked: Promise<string>, askAgain: () => Promise<string>): Promise<Buffer> => {
  try {
    return await readFile(await asked);
  } catch (error) {
    if (!isMissing(error)) throw error;
    return readFile(await askAgain());
  }
};

const writeVideoTrack = async ({ assetId, plan, rung, output, signal }: { assetId: string; plan: PlaybackPlan; rung: Rung; output: string; signal: AbortSignal }) => {
  const count = plan.video?.segments.length ?? 0;
  const ensure = (index: number) => untilAborted(ensureVideoSegment({ assetId, plan, rung, index, priority: ENCODE_PRIORITY.background }), signal);
  const pending = new Map<number, Promise<string>>();
  const ask = (index: number) => {
    if (index >= count || pending.has(index)) return;
    const asked = ensure(index);
    asked.catch(() => undefined);
    pending.set(index, asked);
  };
  const file = await open(output, 'w');
  try {
    await file.write(await readFile(await untilAborted(ensureInitSegment({ assetId, plan, rung }), signal)));
    for (let index = 0; index < count; index++) {
      for (let ahead = index; ahead <= index + SEGMENTS_AHEAD; ahead++) ask(ahead);
      const asked = pending.get(index) ?? ensure(index);
      pending.delete(index);
      await file.write(await readEnsured(asked, () => ensure(index)));
    }
  } finally {
    await file.close();
  }
};

// MP4 and M4A downloads carry the primary audio track, as Mux's do.
const writeAudioTrack = async ({ assetId, plan, output }: { assetId: string; plan: PlaybackPlan; output: string }) => {
  const rendition = audioRenditionOf({ plan, tracks: [] }, PRIMARY_AUDIO_RENDITION);
  if (!rendition) throw new Error('the asset has no audio track');
  const count = rendition.segmentDurations.length;
  const audioFile = async (index: number | null) => {
    const found = await waitForAudioFile({ assetId, rendition, index });
    if (!found) throw new Error(`audio ${index === null ? 'init segment' : `segment ${index}`} was not produced`);
    return readFile(found);
  };
  const file = await open(output, 'w');
  try {
    await file.write(await audioFile(null));
    for (let index = 0; index < count; index++) await file.write(await audioFile(index));
  } finally {
    await file.close();
  }
};

const remux = async ({ videoPath, audioPath, outputPath, signal }: { videoPath: string | null; audioPath: string | null; outputPath: string; signal: AbortSignal }) => {
  const result = await runProcess({
    command: getEnv().ffmpegPath,
    args: buildStaticRemuxArgs({ videoPath, audioPath, outputPath }),
    timeoutMs: REMUX_TIMEOUT_MS,
    signal,
    background: true,
    children: childProcesses(),
  });
  if (signal.aborted) throw new Error('the static rendition build was stopped');
  if (result.exitCode !== 0) throw new Error(`ffmpeg remux failed (${result.signal ?? result.exitCode}): ${result.stderr.trim().slice(-500)}`);
};

/** Builds one static rendition file and records the outcome; does nothing for a file not (or no longer) `preparing`. */
export const buildStaticRendition = async ({ renditionId, signal, log }: { renditionId: string; signal: AbortSignal; log: Logger }): Promise<void> => {
  const file = await getDb().staticRendition.findUnique({
    where: { id: renditionId },
    select: { id: true, name: true, resolution: true, viaMp4Support: true, status: true, asset: { select: { id: true, status: true, planJson: true } } },
  });
  if (!file || file.status !== 'preparing') return;
  const { asset } = file;
  if (asset.status === 'errored') {
    await settleStaticRendition({ renditionId, outcome: { status: 'errored', reason: 'The asset could not be ingested' } });
    return;
  }
  // Queued again by the ingest once the asset is ready.
  if (asset.status !== 'ready' || !asset.planJson) return;
  const plan = JSON.parse(asset.planJson) as PlaybackPlan;
  const source = staticRenditionSource({ resolution: file.resolution, viaMp4Support: file.viaMp4Support, rungs: plan.rungs, hasAudio: plan.audio !== null });
  if (source.kind === 'unavailable') {
    await settleStaticRendition({ renditionId, outcome: { status: source.status, reason: source.reason } });
    return;
  }

  const startedAt = performance.now();
  const target = staticRenditionPath(getEnv().dataDir, asset.id, file);
  const work = path.join(path.dirname(target), `.work-${renditionId}-${randomBytes(4).toString('hex')}`);
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(work, { recursive: true });
    const outcome = await withAssetCancellation(asset.id, signal, async (cancel) => {
      const videoPath = source.kind === 'video' ? path.join(work, 'video.mp4') : null;
      const audioPath = plan.audio ? path.join(work, 'audio.mp4') : null;
      if (videoPath && source.kind === 'video') await writeVideoTrack({ assetId: asset.id, plan, rung: source.rung, output: videoPath, signal: cancel });
      if (audioPath) await writeAudioTrack({ assetId: asset.id, plan, output: audioPath });
      await remux({ videoPath, audioPath, outputPath: temp, signal: cancel });
      const probe = await probeMedia({ ffprobePath: getEnv().ffprobePath, inputPath: temp, signal: cancel, timeoutMs: PROBE_TIMEOUT_MS, children: childProcesses() });
      const { size } = await stat(temp);
      await rename(temp, target);
      const video = primaryVideo(probe);
      const bitrate = probe.bitRate ?? (probe.durationSeconds ? Math.round((size * 8) / probe.durationSeconds) : null);
      return { status: 'ready' as const, width: video?.displayWidth ?? null, height: video?.displayHeight ?? null, bitrate, fileSize: BigInt(size) };
    });
    // Every node serves it once the bucket has it.
    await shareFile(target);
    // Deleted while it was being built: nobody will ask for this file.
    if (!(await settleStaticRendition({ renditionId, outcome }))) await removeStaticRenditionFiles(asset.id, [file]);
    log.info({ assetId: asset.id, name: file.name, bytes: Number(outcome.fileSize), ms: Math.round(performance.now() - startedAt) }, 'static rendition ready');
  } catch (error) {
    // The asset was deleted meanwhile (which stopped the encodes): nothing to retry, and the
    // folder this build may have recreated goes too.
    if (!(await getDb().asset.findUnique({ where: { id: asset.id }, select: { id: true } }))) {
      await removeAssetFiles(getEnv().dataDir, asset.id);
      return;
    }
    throw error;
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(temp, { force: true });
  }
};

/** The job gave up: the file is errored, with the last reason. */
export const giveUpStaticRendition = async (renditionId: string, error: unknown): Promise<void> => {
  const reason = error instanceof Error ? error.message : String(error);
  await settleStaticRendition({ renditionId, outcome: { status: 'errored', reason: `The file could not be built: ${reason}` } });
};
