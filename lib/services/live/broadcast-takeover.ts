import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import type { LatencyMode } from '../../schemas/live-stream';
import type { BroadcastResume } from './broadcast';
import { readMirroredBroadcast } from './broadcast-mirror';
import { LATENCY_PROFILES } from './latency-profiles';
import { broadcastDirectory } from './live-files';

// A publisher reconnecting to this node while its broadcast's holder is gone (killed, crashed,
// frozen): within the stream's reconnect window, this node continues the same recording after the
// last segment the bucket has (broadcast-mirror.ts), with one discontinuity, rather than start a
// new one. The holder is gone when it does not answer at its node URL; the claim is a conditional
// update of the stream row, so of two nodes (or a holder coming back) one wins, and a holder that
// finds its recording continued elsewhere drops its session (live-runtime.ts).

const HOLDER_PROBE_MS = 2_000;

export type AbandonedStream = {
  id: string;
  latencyMode: string;
  reconnectWindow: number;
  activeAssetId: string | null;
  ingestNodeId: string | null;
  ingestNodeUrl: string | null;
};

export type Takeover = { assetId: string; resume: BroadcastResume };

/** Whether the node at `url` answers HTTP at all (any status: it is alive, if unwell). */
export const nodeAnswers = async (url: string): Promise<boolean> => {
  try {
    const response = await fetch(new URL('/api/health', url), { signal: AbortSignal.timeout(HOLDER_PROBE_MS) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
};

/**
 * The first media sequence number this node may use: past the last segment the bucket has, and past
 * every segment the holder could have made after it (players may have seen those), counting one per
 * segment duration of wall clock since.
 */
export const resumeMsn = ({ lastMsn, lastEndMs, now, segmentSeconds }: { lastMsn: number; lastEndMs: number; now: number; segmentSeconds: number }): number =>
  lastMsn + 1 + Math.ceil(Math.max(0, now - lastEndMs) / 1000 / segmentSeconds);

/** Claims the stream's recording when its holder is gone and the reconnect window is still open; null otherwise. */
export const claimAbandonedBroadcast = async ({
  stream,
  node,
  dataDir,
  log,
}: {
  stream: AbandonedStream;
  node: { id: string; url: string };
  dataDir: string;
  log: Logger;
}): Promise<Takeover | null> => {
  const { activeAssetId: assetId, ingestNodeId: holder } = stream;
  if (!assetId || !holder || holder === node.id || stream.reconnectWindow <= 0) return null;
  if (stream.ingestNodeUrl && (await nodeAnswers(stream.ingestNodeUrl))) return null;
  const mirrored = await readMirroredBroadcast(broadcastDirectory(dataDir, { assetId, broadcastId: assetId }));
  if (!mirrored?.last) return null;
  const now = Date.now();
  const awaySeconds = (now - mirrored.last.endMs) / 1000;
  if (awaySeconds > stream.reconnectWindow) {
    log.info({ liveStreamId: stream.id, awaySeconds }, "the broadcast's node is gone and its reconnect window has passed: a new broadcast starts");
    return null;
  }
  const claimed = await getDb().liveStream.updateMany({
    where: { id: stream.id, ingestNodeId: holder, activeAssetId: assetId },
    data: { ingestNodeId: node.id, ingestNodeUrl: node.url },
  });
  if (claimed.count !== 1) return null;
  const segmentSeconds = LATENCY_PROFILES[stream.latencyMode as LatencyMode].segmentSeconds;
  log.info({ liveStreamId: stream.id, assetId, from: holder, awaySeconds, connections: mirrored.connections }, "continuing a broadcast whose node is gone");
  return { assetId, resume: { connections: mirrored.connections, firstMsn: resumeMsn({ lastMsn: mirrored.last.msn, lastEndMs: mirrored.last.endMs, now, segmentSeconds }) } };
};
