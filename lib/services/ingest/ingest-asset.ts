import { stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { isDownloadError } from '../../ingest/download-to-file';
import { checkInputUrlSyntax } from '../../ingest/url-policy';
import { isMediaInputError } from '../../media/media-errors';
import { probeMedia } from '../../media/probe-media';
import { verifyDecodable } from '../../media/verify-decodable';
import { childProcesses } from '../processes/child-processes';
import type { AssetInput, EncodingTier, MaxResolutionTier } from '../../schemas/asset-settings';
import { assetJson } from '../master/master-links';
import { startMaster } from '../master/master-state';
import { enqueueJob } from '../../jobs/queue';
import { recordIngestStep, type IngestStep } from '../../metrics/record';
import { measureEncodeCostIfUnknown } from '../playback/measure-encode-cost';
import { buildPlaybackPlan, type PlaybackPlan } from '../playback/playback-plan';
import { assetInclude } from '../records/asset-record';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { isStoredFile, removeAssetFiles, sourceFilePath } from '../../storage/asset-files';
import { deleteSharedAsset } from '../storage/shared-storage';
import { generateId } from '../../utils/ids';
import { cutClip } from '../clips/cut-clip';
import { adoptUploadedFile } from './adopt-uploaded-file';
import { assetMediaFields } from '../inputs/asset-media-fields';
import { isLiveIngestType, type AudioTrack } from '../../schemas/asset';
import { inputTracks } from '../tracks/input-tracks';
import { insertTracks } from '../tracks/insert-tracks';
import { sourceAudioTrackRows } from '../tracks/source-audio-tracks';
import { recordTrackEvent } from '../tracks/track-events';
import { downloadSource, type SourceDownload } from './download-source';
import { fetchOverlays } from './fetch-overlays';
import { withIngestCpuSlot } from './ingest-cpu-slots';
import { withCompleteFileSize } from './inspect-while-downloading';
import { markAssetErrored } from './mark-asset-errored';
import { isSourceStored, shareSource } from '../inputs/source-input';
import { queueReadyAssetRenditions } from '../static-renditions/queue-ready-asset-renditions';

const TEST_ASSET_MAX_SECONDS = 10;
const PROBE_TIMEOUT_MS = 60_000;


// Each step's time is logged with the ready asset (in ms, under these names) and observed in the
// ingest step histogram (in seconds, labelled with the step).
const STEP_LOG_NAMES: Record<Exclude<IngestStep, 'total'>, string> = {
  download: 'downloadMs',
  inspect_while_downloading: 'inspectWhileDownloadingMs',
  cpu_slot_wait: 'cpuSlotWaitMs',
  probe: 'probeMs',
  decode_check: 'decodeCheckMs',
};

const formatHours = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds} s`);

// Brings one asset from `preparing` to `ready` (or `errored`): fetch the source, inspect it, and
// record what it contains. Each step is safe to repeat, so an interrupted ingest resumes.
export const ingestAsset = async ({
  assetId,
  signal,
  log,
}: {
  assetId: string;
  signal: AbortSignal;
  log: Logger;
}): Promise<void> => {
  const env = getEnv();
  const db = getDb();
  const asset = await db.asset.findUnique({ where: { id: assetId } });
  if (!asset) return;
  const sourcePath = sourceFilePath(env.dataDir, assetId);
  if (asset.status === 'ready' && asset.uploadId === null && !(await isSourceStored(assetId))) {
    // A clip's source is its cut, made again (the node that made it stopped before sharing it).
    if (asset.ingestType === 'on_demand_clip') {
      await cutClip({ inputsJson: asset.inputsJson, sourcePath, signal });
      await shareSource(assetId);
      return;
    }
    await finishSourceDownload({ assetId, inputsJson: asset.inputsJson, expectedBytes: asset.sourceBytes, sourcePath, signal, log });
    return;
  }
  // A retry after the source's upload to the bucket failed.
  if (asset.status === 'ready') await shareSource(assetId);
  if (asset.status !== 'preparing') return;

  const startedAt = performance.now();
  const startedAtEpochMs = Date.now();
  const timings: Record<string, number> = {};
  const lap = (step: keyof typeof STEP_LOG_NAMES, since: number) => {
    const now = performance.now();
    timings[STEP_LOG_NAMES[step]] = Math.round(now - since);
    recordIngestStep({ step, seconds: (now - since) / 1000 });
    return now;
  };
  // Stops a download still running in the background when the ingest ends without the asset ready.
  const stopDownload = new AbortController();
  const onAbort = () => stopDownload.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let download: SourceDownload | null = null;
  let finished = false;
  try {
    // Watermarks first: a bad image fails the asset before its video is fetched.
    const watermarks = await fetchOverlays({ assetId, inputsJson: asset.inputsJson, signal: stopDownload.signal });
    if (!watermarks.ok) {
      await markAssetErrored({ assetId, type: watermarks.type, messages: [watermarks.message] });
      return;
    }
    if (!(await isStoredFile(sourcePath)) && asset.uploadId !== null) {
      if (!(await adoptUploadedFile({ uploadId: asset.uploadId, sourcePath, signal }))) {
        await markAssetErrored({ assetId, type: 'invalid_input', messages: ['The uploaded file is no longer available'] });
        return;
      }
    } else if (!(await isStoredFile(sourcePath)) && asset.ingestType === 'on_demand_clip') {
      await withIngestCpuSlot(signal, () => cutClip({ inputsJson: asset.inputsJson, sourcePath, signal }));
    } else if (!(await isStoredFile(sourcePath))) {
      const [input] = JSON.parse(asset.inputsJson) as AssetInput[];
      const checked = checkInputUrlSyntax(input?.url ?? '', { allowPrivate: env.allowPrivateInputUrls });
      if (!checked.ok) {
        await markAssetErrored({ assetId, type: 'download_failed', messages: [checked.reason] });
        return;
      }
      download = await downloadSource({ assetId, url: checked.url.toString(), sourcePath, signal: stopDownload.signal, inspect: true });
      // Awaited below, maybe after readiness; a failure before that must not go unhandled.
      download.done.catch(() => undefined);
    }
    const inspected = download ? await download.early : null;
    // With the index and both ends checked, the asset is ready before the middle has arrived.
    const readyWhileDownloading = inspected?.decodedEnds.length === 2;
    if (download && !readyWhileDownloading) {
      const result = await download.done;
      log.info({ bytes: result.bytes, finalUrl: result.finalUrl }, 'input downloaded');
    }
    let since = lap(readyWhileDownloading ? 'inspect_while_downloading' : 'download', startedAt);

    const size = (readyWhileDownloading && download?.declaredBytes()) || (await stat(sourcePath)).size;
    const ends = (['start', 'end'] as const).filter((end) => !inspected?.decodedEnds.includes(end));
    // What the early inspection did not check is checked on the complete file, in a CPU slot.
    const probe =
      inspected && ends.length === 0
        ? withCompleteFileSize(inspected.probe, size)
        : await withIngestCpuSlot(signal, async () => {
            since = lap('cpu_slot_wait', since);
            const probed = inspected
              ? withCompleteFileSize(inspected.probe, size)
              : await probeMedia({ ffprobePath: env.ffprobePath, inputPath: sourcePath, signal, timeoutMs: PROBE_TIMEOUT_MS, children: childProcesses() });
            since = lap('probe', since);
            if ((probed.durationSeconds ?? 0) <= env.maxInputDurationSeconds) {
              await verifyDecodable({ ffmpegPath: env.ffmpegPath, inputPath: sourcePath, probe: probed, signal, ends, children: childProcesses() });
            }
            lap('decode_check', since);
            return probed;
          });
    const duration = probe.durationSeconds ?? 0;
    if (duration > env.maxInputDurationSeconds) {
      await markAssetErrored({
        assetId,
        type: 'invalid_input',
        messages: [`The input is ${Math.round(duration)} s long; the maximum duration is ${formatHours(env.maxInputDurationSeconds)}`],
      });
      return;
    }

    const fields = assetMediaFields({
      probe,
      maxResolutionTier: asset.maxResolutionTier as MaxResolutionTier,
      newTrackId: () => generateId(),
      durationCapSeconds: asset.test ? TEST_ASSET_MAX_SECONDS : undefined,
    });
    const playbackPlan: PlaybackPlan = {
      ...buildPlaybackPlan({
        probe,
        encodingTier: asset.encodingTier as EncodingTier,
        maxResolutionTier: asset.maxResolutionTier as MaxResolutionTier,
        durationCapSeconds: asset.test ? TEST_ASSET_MAX_SECONDS : undefined,
      }),
      ...(watermarks.overlays.length > 0 && { overlays: watermarks.overlays }),
    };
    // video.asset.ready is recorded with the status change, and only if this update made it.
    const readyAt = new Date();
    const readyAtEpochMs = readyAt.getTime();
    const updated = await db.$transaction(async (tx) => {
      const result = await tx.asset.updateMany({
        where: { id: assetId, status: 'preparing' },
        data: {
          status: 'ready',
          progressState: 'completed',
          durationSeconds: fields.durationSeconds,
          aspectRatio: fields.aspectRatio,
          maxFrameRate: fields.maxFrameRate,
          resolutionTier: fields.resolutionTier,
          tracksJson: JSON.stringify(fields.tracks),
          probeJson: JSON.stringify(probe),
          planJson: JSON.stringify(playbackPlan),
          sourceBytes: BigInt(size),
          readyAt,
        },
      });
      if (result.count === 1) {
        const inputs = JSON.parse(asset.inputsJson) as AssetInput[];
        const audioRows = sourceAudioTrackRows({
          probedTracks: fields.tracks.filter((track): track is AudioTrack => track.type === 'audio'),
          titles: probe.audio.map((stream) => stream.title),
          firstInput: inputs[0],
        });
        await tx.track.createMany({ data: audioRows.map((row) => ({ ...row, assetId })) });
        // Tracks the create request asked for are prepared after readiness: `preparing` in video.asset.ready.
        const added = await insertTracks(tx, assetId, inputTracks(inputs, audioRows.find((row) => row.primary)?.id, { liveRecording: isLiveIngestType(asset.ingestType) }), {
          announce: false,
        });
        const ready = await tx.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
        await recordWebhookEvent(tx, { type: 'video.asset.ready', object: { type: 'asset', id: assetId }, data: assetJson(ready) });
        if (isLiveIngestType(asset.ingestType)) {
          await recordWebhookEvent(tx, { type: 'video.asset.live_stream_completed', object: { type: 'asset', id: assetId }, data: assetJson(ready) });
        }
        for (const track of added) await recordTrackEvent(tx, 'video.asset.track.created', assetId, track);
        // Master access asked for at creation starts once there is something to make it from.
        if (ready.masterAccess === 'temporary') await startMaster(tx, assetId);
      }
      return result;
    });
    if (updated.count === 0) {
      await cleanUpIfDeleted(assetId);
      return;
    }
    const sinceCreated = (epochMs: number) => Math.round(epochMs - asset.createdAt.getTime());
    const timeline = {
      claimed: sinceCreated(startedAtEpochMs),
      ...(inspected?.startedAtEpochMs !== undefined && { inspectionStarted: sinceCreated(inspected.startedAtEpochMs) }),
      ...Object.fromEntries(
        Object.entries(inspected?.timings ?? {}).map(([name, ms]) => [name, sinceCreated((inspected?.startedAtEpochMs ?? 0) + ms)]),
      ),
      ready: sinceCreated(readyAtEpochMs),
      logged: sinceCreated(Date.now()),
    };
    const totalMs = performance.now() - startedAt;
    recordIngestStep({ step: 'total', seconds: totalMs / 1000 });
    log.info({ ...timings, early: inspected?.timings, timeline, readyWhileDownloading, totalMs: Math.round(totalMs) }, 'asset ready');
    measureEncodeCostIfUnknown(assetId, playbackPlan);
    // Work that follows readiness: the continuous audio track, and rungs above 1080p.
    if (playbackPlan.audio) {
      await enqueueJob({ name: 'encode-audio-job', payload: { assetId }, maxAttempts: 3, dedupeKey: `audio:${assetId}` });
    }
    if (playbackPlan.rungs.some((rung) => rung.isBackground)) {
      await enqueueJob({ name: 'encode-background-rungs-job', payload: { assetId }, maxAttempts: 3, dedupeKey: `rungs:${assetId}` });
    }
    const staticRenditions = await queueReadyAssetRenditions(assetId);
    if (staticRenditions > 0) log.info({ files: staticRenditions }, 'static renditions queued');
    finished = true;
    if (download && readyWhileDownloading) {
      const result = await download.done;
      log.info({ bytes: result.bytes, totalMs: Math.round(performance.now() - startedAt) }, 'input downloaded after the asset became ready');
    }
    // After readiness, so uploading to the bucket never delays it; this node reads its own copy.
    await shareSource(assetId);
  } catch (error) {
    await settleFailure(assetId, signal, error);
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!finished) stopDownload.abort();
  }
};

// The asset became ready while its source was downloading, and that download was interrupted (a
// restart): fetch the source again. Readers wait for it meanwhile (see source-input.ts).
const finishSourceDownload = async ({
  assetId,
  inputsJson,
  expectedBytes,
  sourcePath,
  signal,
  log,
}: {
  assetId: string;
  inputsJson: string;
  expectedBytes: bigint | null;
  sourcePath: string;
  signal: AbortSignal;
  log: Logger;
}): Promise<void> => {
  const [input] = JSON.parse(inputsJson) as AssetInput[];
  try {
    const download = await downloadSource({ assetId, url: input?.url ?? '', sourcePath, signal, inspect: false });
    const result = await download.done;
    if (expectedBytes !== null && BigInt(result.bytes) !== expectedBytes) {
      await markAssetErrored({
        assetId,
        type: 'download_failed',
        messages: [`The input changed while it was being downloaded (${expectedBytes} bytes, then ${result.bytes})`],
        fromReady: true,
      });
      return;
    }
    log.info({ bytes: result.bytes }, 'input download resumed and finished');
    await shareSource(assetId);
  } catch (error) {
    await settleFailure(assetId, signal, error);
  }
};

// An abort is a deletion (clean up) or a shutdown (rethrown: the job goes back in the queue).
// Problems with the input end in `errored`, also for an asset that was ready while its source was
// still downloading; anything else is rethrown for the job to retry.
const settleFailure = async (assetId: string, signal: AbortSignal, error: unknown): Promise<void> => {
  if (signal.aborted) {
    if (await cleanUpIfDeleted(assetId)) return;
    throw error;
  }
  if (isDownloadError(error)) {
    await markAssetErrored({ assetId, type: 'download_failed', messages: [error.message], fromReady: true });
    return;
  }
  if (isMediaInputError(error)) {
    await markAssetErrored({ assetId, type: 'invalid_input', messages: [error.message] });
    return;
  }
  throw error;
};

// A deletion that raced with the ingest may have removed the folder before the download wrote
// into it again.
const cleanUpIfDeleted = async (assetId: string): Promise<boolean> => {
  const stillExists = await getDb().asset.findUnique({ where: { id: assetId }, select: { id: true } });
  if (stillExists) return false;
  await deleteSharedAsset(assetId);
  await removeAssetFiles(getEnv().dataDir, assetId);
  return true;
};
