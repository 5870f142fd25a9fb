import { getDb } from '../../db/client';

// Which node holds the broadcast a playback ID plays, when it is another one: a live stream's own
// playback ID while a publisher is connected there, or its recording asset's while it is the
// stream's active recording. The holder wrote its address (NODE_URL) when the publisher connected
// and clears it when the broadcast ends. Asked only when this node has no broadcast for the ID and
// the on-demand path found nothing playable (live-registry.ts answers the broadcasts held here).
export const remoteBroadcastNodeUrl = async (playbackId: string, ownNodeUrl: string): Promise<string | null> => {
  const db = getDb();
  const live = await db.liveStreamPlaybackId.findUnique({ where: { id: playbackId }, select: { liveStream: { select: { ingestNodeUrl: true } } } });
  let holder = live?.liveStream.ingestNodeUrl ?? null;
  if (!live) {
    const recording = await db.playbackId.findUnique({ where: { id: playbackId }, select: { asset: { select: { id: true, isLive: true, liveStreamId: true } } } });
    const asset = recording?.asset;
    if (asset?.isLive && asset.liveStreamId) {
      const stream = await db.liveStream.findUnique({ where: { id: asset.liveStreamId }, select: { activeAssetId: true, ingestNodeUrl: true } });
      holder = stream?.activeAssetId === asset.id ? stream.ingestNodeUrl : null;
    }
  }
  return holder && holder !== ownNodeUrl ? holder : null;
};
