import { getDb } from '../../db/client';
import type { PlaybackPolicy } from '../../schemas/asset-settings';

// The stream a viewer's live playback ID plays. Read from the database every time, so a deleted
// playback ID stops working at once.

export type LivePlaybackId = { id: string; policy: PlaybackPolicy; liveStreamId: string };

/** A live stream's playback ID (not an asset's); null when there is none. */
export const findLivePlaybackId = async (playbackId: string): Promise<LivePlaybackId | null> => {
  const found = await getDb().liveStreamPlaybackId.findUnique({
    where: { id: playbackId },
    select: { id: true, policy: true, liveStreamId: true },
  });
  return found && { id: found.id, policy: found.policy as PlaybackPolicy, liveStreamId: found.liveStreamId };
};
