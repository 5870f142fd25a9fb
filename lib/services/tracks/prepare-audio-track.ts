import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { downloadToFile, isDownloadError, partialDownloadPath } from '../../ingest/download-to-file';
import { allowAllAddresses, isPublicAddress } from '../../ingest/url-policy';
import { withAssetCancellation } from '../../jobs/signals';
import { buildAudioDecodeArgs, checkAudioDecode, checkAudioFileProbe } from '../../media/audio-file-check';
import { isMediaInputError } from '../../media/media-errors';
import { probeMedia } from '../../media/probe-media';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';
import { audioTrackSourcePath, isStoredFile } from '../../storage/asset-files';
import { channelLayoutName } from '../inputs/asset-media-fields';
import { timelineDuration } from '../playback/audio-renditions';
import { encodeAudioTracks } from '../playback/encode-audio-track';
import type { PlaybackPlan } from '../playback/playback-plan';
import { shareFile } from '../storage/shared-storage';
import { removeTrackFiles } from './manage-tracks';
import { settleTrackErrored, settleTrackReady } from './settle-track';

// An audio file added to a ready asset (POST …/tracks with type "audio", or an audio input of the
// create request): fetched through the same guarded downloader as an asset's input, checked to hold
// an audio stream that decodes, and made ready aligned to the video: it starts with the video, and
// a shorter file is padded with silence and a longer one cut (by its encode, see
// buildAudioTrackArgs), so its duration is the video's. The downloaded file is kept as it came (and
// shared through the bucket with S3, as a source is); its HLS rendition is encoded from it as idle
// work once the track is ready, or for the first viewer who asks for it. A file that cannot be an
// audio track errors the track alone; the asset is not affected.

const USER_AGENT = 'Keyframe/0.1 (+https://github.com/keyframe-video/keyframe)';
const CHECK_TIMEOUT_MS = 10 * 60_000;

const round6 = (seconds: number) => Math.round(seconds * 1e6) / 1e6;

type Verdict = { ok: true; fields: { durationSeconds: number; maxChannels: number; maxChannelLayout: string | null } } | { ok: false; type: string; reason: string };

export const prepareAudioTrack = async ({ trackId, signal, log }: { trackId: string; signal: AbortSignal; log: Logger }): Promise<void> => {
  const track = await getDb().track.findUnique({
    where: { id: trackId },
    select: { assetId: true, type: true, status: true, sourceUrl: true, asset: { select: { planJson: true } } },
  });
  // Deleted, or settled by an earlier attempt.
  if (!track || track.status !== 'preparing' || track.type !== 'audio') return;
  const { assetId } = track;
  const plan = track.asset.planJson ? (JSON.parse(track.asset.planJson) as PlaybackPlan) : null;
  const duration = plan ? round6(timelineDuration(plan)) : 0;
  const verdict: Verdict =
    !track.sourceUrl || !(duration > 0)
      ? { ok: false, type: 'invalid_input', reason: track.sourceUrl ? 'The asset has nothing to align an audio track to' : 'The track has no URL' }
      : await withAssetCancellation(assetId, signal, (cancel) => fetchAndCheck({ assetId, trackId, url: track.sourceUrl!, duration, signal: cancel }));
  if (!verdict.ok) {
    log.info({ reason: verdict.reason }, 'added audio track refused');
    await removeTrackFiles(assetId, { id: trackId, type: 'audio', primary: false });
    await settleTrackErrored(trackId, { type: verdict.type, messages: [verdict.reason] });
    return;
  }
  if (!(await settleTrackReady(trackId, verdict.fields))) {
    // Deleted while it was being prepared: what was written for it goes too.
    await removeTrackFiles(assetId, { id: trackId, type: 'audio', primary: false });
    return;
  }
  log.info(verdict.fields, 'added audio track ready');
  await encodeAudioTracks({ assetId, trackIds: [trackId] });
};

const fetchAndCheck = async ({
  assetId,
  trackId,
  url,
  duration,
  signal,
}: {
  assetId: string;
  trackId: string;
  url: string;
  duration: number;
  signal: AbortSignal;
}): Promise<Verdict> => {
  const env = getEnv();
  const file = audioTrackSourcePath(env.dataDir, assetId, trackId);
  // A retry keeps what an earlier attempt downloaded completely (a download is renamed into place).
  if (!(await isStoredFile(file))) {
    await mkdir(path.dirname(file), { recursive: true });
    try {
      await downloadToFile({
        url,
        destinationPath: file,
        maxBytes: env.maxInputBytes,
        timeoutMs: env.inputDownloadTimeoutMs,
        addressPolicy: env.allowPrivateInputUrls ? allowAllAddresses : isPublicAddress,
        signal,
        userAgent: USER_AGENT,
      });
    } catch (error) {
      await rm(partialDownloadPath(file), { force: true });
      // A shutdown or deletion is the caller's to handle; a bad URL is the user's to fix.
      if (signal.aborted || !isDownloadError(error)) throw error;
      return { ok: false, type: 'download_failed', reason: error.message.replace(/^Failed to download input: /, 'The audio file could not be downloaded: ') };
    }
  }
  let probe;
  try {
    probe = await probeMedia({ ffprobePath: env.ffprobePath, inputPath: file, signal, children: childProcesses() });
  } catch (error) {
    if (signal.aborted || !isMediaInputError(error)) throw error;
    return { ok: false, type: 'invalid_input', reason: error.message.replace('The input file', 'The audio file') };
  }
  const usable = checkAudioFileProbe(probe);
  if (!usable.ok) return { ok: false, type: 'invalid_input', reason: usable.reason };
  const decoded = await runProcess({ command: env.ffmpegPath, args: buildAudioDecodeArgs({ inputPath: file, durationSeconds: duration }), signal, timeoutMs: CHECK_TIMEOUT_MS, children: childProcesses() });
  signal.throwIfAborted();
  if (decoded.timedOut) throw new Error(`decoding the audio file timed out after ${CHECK_TIMEOUT_MS} ms`);
  const decodes = checkAudioDecode({ exitCode: decoded.exitCode, stdout: decoded.stdout, stderr: decoded.stderr, inputPath: file });
  if (!decodes.ok) return { ok: false, type: 'invalid_input', reason: decodes.reason };
  // Every node may be asked for the track's segments: the bucket has the file before it is ready.
  await shareFile(file);
  const audio = probe.audio[0]!;
  return { ok: true, fields: { durationSeconds: duration, maxChannels: audio.channels, maxChannelLayout: channelLayoutName(audio.channelLayout, audio.channels) ?? null } };
};
