import os from 'node:os';
import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { LIVE_INGEST_TYPES } from '../../schemas/asset';
import { markBroadcastEnded } from './broadcast-state';
import { mirroredConnectionCount } from './broadcast-mirror';
import { broadcastDirectory, localConnections, readBroadcastManifest } from './live-files';
import { markSimulcastTargetStatus, simulcastTargetsOf } from './simulcast-state';

// After a crash or a restart, broadcasts this node held are over: their publishers' connections
// died with the process. Each stream it still holds goes idle, and every recording whose media is
// on this node's disk is finalized from what reached it — also one whose stream another node holds
// by now (the publisher reconnected there and records a new asset), which is still marked live —
// unless another node continued that very recording (broadcast-takeover.ts): that node finalizes it.

// Another node holds the recording now (its broadcast goes on there), or has made connections of it
// after this node's (it went on there and has ended since).
const continuedElsewhere = async (recording: { id: string; liveStreamId: string | null }, directory: string, nodeId: string): Promise<boolean> => {
  const stream = recording.liveStreamId
    ? await getDb().liveStream.findUnique({ where: { id: recording.liveStreamId }, select: { activeAssetId: true, ingestNodeId: true } })
    : null;
  if (stream?.activeAssetId === recording.id && stream.ingestNodeId && ![nodeId, os.hostname()].includes(stream.ingestNodeId)) return true;
  // A bucket that cannot be read says nothing; this node's copy is finalized as before.
  const mirrored = await mirroredConnectionCount(directory).catch(() => 0);
  return mirrored > (await localConnections(directory)).length;
};

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
    const directory = broadcastDirectory(dataDir, { assetId: recording.id, broadcastId: recording.id });
    if (!(await readBroadcastManifest(directory))) continue;
    if (await continuedElsewhere(recording, directory, nodeId)) {
      log.info({ assetId: recording.id }, 'an interrupted live recording was continued by another node, which finalizes it');
      continue;
    }
    if (recording.isLive && recording.liveStreamId) await markBroadcastEnded({ liveStreamId: recording.liveStreamId, assetId: recording.id, nodeId });
    log.info({ assetId: recording.id }, 'finalizing an interrupted live recording');
    finalize(recording.id);
  }
};
