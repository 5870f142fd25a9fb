import { getDb } from '../../db/client';
import { getLogger } from '../../log';
import { trackSelect } from '../../schemas/track';
import { recordTrackEvent } from './track-events';
import { announceTracksChanged } from './tracks-changed';

// How a track's preparation ends. Only a track still preparing changes (a deleted one is gone, and
// a retried job must not announce it twice); the event is recorded with the change.

export type ReadyTrackFields = {
  durationSeconds?: number;
  maxChannels?: number;
  maxChannelLayout?: string | null;
  /** The language found (generated captions asked for in `auto`). */
  languageCode?: string;
};

export const settleTrackReady = async (trackId: string, fields: ReadyTrackFields = {}): Promise<boolean> => {
  const settled = await getDb().$transaction(async (tx) => {
    const result = await tx.track.updateMany({ where: { id: trackId, status: 'preparing' }, data: { status: 'ready', ...fields } });
    if (result.count === 0) return null;
    const track = await tx.track.findUniqueOrThrow({ where: { id: trackId }, select: { ...trackSelect, assetId: true } });
    await recordTrackEvent(tx, 'video.asset.track.ready', track.assetId, track);
    return track;
  });
  if (settled) await announceTracksChanged(settled.assetId);
  return settled !== null;
};

export const settleTrackErrored = async (
  trackId: string,
  { type = 'invalid_input', messages }: { type?: string; messages: string[] },
): Promise<boolean> => {
  const settled = await getDb().$transaction(async (tx) => {
    const result = await tx.track.updateMany({
      where: { id: trackId, status: 'preparing' },
      data: { status: 'errored', errorType: type, errorMessagesJson: JSON.stringify(messages) },
    });
    if (result.count === 0) return null;
    const track = await tx.track.findUniqueOrThrow({ where: { id: trackId }, select: { ...trackSelect, assetId: true } });
    await recordTrackEvent(tx, 'video.asset.track.errored', track.assetId, track);
    return track;
  });
  if (settled) {
    getLogger().info({ trackId, assetId: settled.assetId, messages }, 'track errored');
    await announceTracksChanged(settled.assetId);
  }
  return settled !== null;
};

/** A job that gave up after its retries (a crash, not a bad file): the track errors with the reason. */
export const giveUpTrack = (trackId: string, error: unknown): Promise<boolean> =>
  settleTrackErrored(trackId, { type: 'failed_request', messages: [`Preparing the track failed: ${error instanceof Error ? error.message : String(error)}`] });
