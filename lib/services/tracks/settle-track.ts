import { getDb } from '../../db/client';
import type { Prisma } from '../../db/generated/client';
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

// Moves a preparing track to its end state with its event, then has every node drop the asset's
// playback record; null when the track was not preparing any more (deleted, or settled before).
const settleTrack = async (
  trackId: string,
  data: Prisma.TrackUpdateManyMutationInput,
  event: 'video.asset.track.ready' | 'video.asset.track.errored',
): Promise<{ assetId: string } | null> => {
  const settled = await getDb().$transaction(async (tx) => {
    const result = await tx.track.updateMany({ where: { id: trackId, status: 'preparing' }, data });
    if (result.count === 0) return null;
    const track = await tx.track.findUniqueOrThrow({ where: { id: trackId }, select: { ...trackSelect, assetId: true } });
    await recordTrackEvent(tx, event, track.assetId, track);
    return track;
  });
  if (settled) await announceTracksChanged(settled.assetId);
  return settled;
};

export const settleTrackReady = async (trackId: string, fields: ReadyTrackFields = {}): Promise<boolean> =>
  (await settleTrack(trackId, { status: 'ready', ...fields }, 'video.asset.track.ready')) !== null;

export const settleTrackErrored = async (
  trackId: string,
  { type = 'invalid_input', messages }: { type?: string; messages: string[] },
): Promise<boolean> => {
  const settled = await settleTrack(
    trackId,
    { status: 'errored', errorType: type, errorMessagesJson: JSON.stringify(messages) },
    'video.asset.track.errored',
  );
  if (settled) getLogger().info({ trackId, assetId: settled.assetId, messages }, 'track errored');
  return settled !== null;
};

/** A job that gave up after its retries (a crash, not a bad file): the track errors with the reason. */
export const giveUpTrack = (trackId: string, error: unknown): Promise<boolean> =>
  settleTrackErrored(trackId, { type: 'failed_request', messages: [`Preparing the track failed: ${error instanceof Error ? error.message : String(error)}`] });
