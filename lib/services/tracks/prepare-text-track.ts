import path from 'node:path';
import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { withAssetCancellation } from '../../jobs/signals';
import { parseSubtitleFile } from '../../media/text/parse-subtitles';
import { removeAssetFiles, trackDirectory } from '../../storage/asset-files';
import { deleteSharedAsset } from '../storage/shared-storage';
import { fetchTextTrackFile } from './fetch-text-track-file';
import { removeTrackFiles } from './manage-tracks';
import { settleTrackErrored, settleTrackReady } from './settle-track';
import { storeTextTrackCues } from './store-text-track';

// An uploaded subtitle track (an input `type: "text"` or POST …/tracks): its WebVTT or SRT file is
// fetched, checked and stored as normalised WebVTT plus a plain transcript; then the track is
// ready. A file that cannot be used errors the track with the reason; the asset is not affected.

type TextTrackRow = { id: string; assetId: string; type: string; primary: boolean; sourceUrl: string };

export const prepareTextTrack = async ({ trackId, signal, log }: { trackId: string; signal: AbortSignal; log: Logger }): Promise<void> => {
  const track = await getDb().track.findUnique({
    where: { id: trackId },
    select: { id: true, assetId: true, type: true, primary: true, status: true, sourceUrl: true },
  });
  // Deleted meanwhile, or settled by an earlier attempt.
  if (!track || track.status !== 'preparing') return;
  if (track.type !== 'text' || !track.sourceUrl) {
    await settleTrackErrored(trackId, { messages: ['This track has no subtitle file to fetch'] });
    return;
  }
  const row = { ...track, sourceUrl: track.sourceUrl };
  try {
    await withAssetCancellation(track.assetId, signal, (assetSignal) => fetchAndStore(row, assetSignal, log));
  } catch (error) {
    // A shutdown: the job goes back in the queue. A deleted asset: nothing is left to prepare.
    if (signal.aborted || !(await assetIsGone(track.assetId))) throw error;
    await throwAwayAsset(track.assetId);
  }
};

const fetchAndStore = async (track: TextTrackRow, signal: AbortSignal, log: Logger): Promise<void> => {
  const dataDir = getEnv().dataDir;
  const fetched = await fetchTextTrackFile({
    url: track.sourceUrl,
    downloadPath: path.join(trackDirectory(dataDir, track.assetId, track.id), 'source.download'),
    signal,
  });
  if (!fetched.ok) {
    await settleTrackErrored(track.id, { type: 'download_failed', messages: [fetched.reason] });
    return;
  }
  const parsed = parseSubtitleFile(fetched.bytes);
  if (!parsed.ok) {
    await settleTrackErrored(track.id, { type: 'invalid_input', messages: [`The subtitle file cannot be used: ${parsed.reason}`] });
    return;
  }
  await storeTextTrackCues({ assetId: track.assetId, trackId: track.id, cues: parsed.cues });
  signal.throwIfAborted();
  log.info({ format: parsed.format, cues: parsed.cues.length, bytes: fetched.bytes.length }, 'text track stored');
  // Deleted while it was being prepared: its files go too.
  if (!(await settleTrackReady(track.id))) {
    if (await assetIsGone(track.assetId)) await throwAwayAsset(track.assetId);
    else await removeTrackFiles(track.assetId, track);
  }
};

const assetIsGone = async (assetId: string): Promise<boolean> =>
  (await getDb().asset.findUnique({ where: { id: assetId }, select: { id: true } })) === null;

// The deletion removed the asset's folder before this job wrote into it again.
const throwAwayAsset = async (assetId: string): Promise<void> => {
  await deleteSharedAsset(assetId);
  await removeAssetFiles(getEnv().dataDir, assetId);
};
