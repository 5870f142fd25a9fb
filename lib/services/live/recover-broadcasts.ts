import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { markBroadcastEnded } from './broadcast-state';
import { broadcastDirectory, readBroadcastManifest } from './live-files';

// After a crash or a restart, broadcasts this node held are over: their publishers' connections
// died with the process. Each stream goes idle, and every recording whose media is on this node
// is finalized from what reached the disk.
export const recoverInterruptedBroadcasts = async ({
  nodeId,
  finalize,
  log,
}: {
  nodeId: string;
  finalize: (assetId: string) => void;
  log: Logger;
}): Promise<void> => {
  const db = getDb();
  const streams = await db.liveStream.findMany({ where: { ingestNodeId: nodeId }, select: { id: true, activeAssetId: true } });
  for (const stream of streams) {
    await markBroadcastEnded({ liveStreamId: stream.id, assetId: stream.activeAssetId });
    log.info({ liveStreamId: stream.id }, 'broadcast interrupted by a restart ended');
  }
  const recordings = await db.asset.findMany({ where: { ingestType: 'live_rtmp', status: 'preparing' }, select: { id: true, isLive: true } });
  const dataDir = getEnv().dataDir;
  for (const recording of recordings) {
    if (recording.isLive) continue;
    if (!(await readBroadcastManifest(broadcastDirectory(dataDir, { assetId: recording.id, broadcastId: recording.id })))) continue;
    log.info({ assetId: recording.id }, 'finalizing an interrupted live recording');
    finalize(recording.id);
  }
};
