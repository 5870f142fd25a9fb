import os from 'node:os';
import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { LIVE_INGEST_TYPES } from '../../schemas/asset';
import { markBroadcastEnded } from './broadcast-state';
import { broadcastDirectory, readBroadcastManifest } from './live-files';
import { markSimulcastTargetStatus, simulcastTargetsOf } from './simulcast-state';

// After a crash or a restart, broadcasts this node held are over: their publishers' connections
// died with the process. Each stream it still holds goes idle, and every recording whose media is
// on this node's disk is finalized from what reached it — also one whose stream another node holds
// by now (the publisher reconnected there and records a new asset), which is still marked live.
export const recoverInterruptedBroadcasts = async ({
  nodeId,
  startedAt,
  finalize,
  log,
}: {
  nodeId: string;
  /** When this process started: recordings begun since are broadcasts of this run, not interrupted ones. */
  startedAt: Date;
  finalize: (assetId: string) => void;
  log: Logger;
}): Promise<void> => {
  const db = getDb();
  // Rows written before node ids were per DATA_DIR name the host.
  const streams = await db.liveStream.findMany({
    where: { ingestNodeId: { in: [nodeId, os.hostname()] } },
    select: { id: true, activeAssetId: true, ingestNodeId: true },
  });
  for (const stream of streams) {
    await markBroadcastEnded({ liveStreamId: stream.id, assetId: stream.activeAssetId, nodeId: stream.ingestNodeId ?? nodeId });
    // Its restreams died with the process too.
    for (const target of await simulcastTargetsOf(stream.id)) await markSimulcastTargetStatus(target.id, 'idle');
    log.info({ liveStreamId: stream.id }, 'broadcast interrupted by a restart ended');
  }
  const recordings = await db.asset.findMany({ where: { ingestType: { in: [...LIVE_INGEST_TYPES] }, status: 'preparing', createdAt: { lt: startedAt } }, select: { id: true, isLive: true, liveStreamId: true } });
  const dataDir = getEnv().dataDir;
  for (const recording of recordings) {
    if (!(await readBroadcastManifest(broadcastDirectory(dataDir, { assetId: recording.id, broadcastId: recording.id })))) continue;
    if (recording.isLive && recording.liveStreamId) await markBroadcastEnded({ liveStreamId: recording.liveStreamId, assetId: recording.id, nodeId });
    log.info({ assetId: recording.id }, 'finalizing an interrupted live recording');
    finalize(recording.id);
  }
};
