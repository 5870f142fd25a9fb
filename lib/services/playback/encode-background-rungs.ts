import { readdir, stat } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { enqueueJob } from '../../jobs/queue';
import { notifyJobEnqueued } from '../../jobs/signals';
import type { Rung } from '../../media/hls/ladder';
import { parseSegmentFileName } from '../../media/names';
import { mediaSegmentPath, objectKeyOf, renditionCompletePath, renditionDirectory } from '../../storage/asset-files';
import { publishFile } from '../../storage/atomic-file';
import { isMarkerStored, shareFile, sharedStore, whenAssetTransfersSettled } from '../storage/shared-storage';
import type { PlaybackPlan } from './playback-plan';
import { ENCODE_PRIORITY, encodeKey } from './runtime';
import { ensureVideoSegment } from './video-segments';
import { untilAborted } from '../../utils/until-aborted';

// Rungs above 1080p cannot be encoded in real time on a small machine, so they are encoded segment
// by segment in the background (behind viewers' on-demand requests) and listed once complete. Each
// segment is a job of its own, so every worker (every node, with several) can take one: N workers
// finish a rung about N times sooner. The segment job that finds its rung's last segment stored
// marks the rung complete.

const loadPlan = async (assetId: string): Promise<PlaybackPlan | null> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { planJson: true } });
  return asset?.planJson ? (JSON.parse(asset.planJson) as PlaybackPlan) : null;
};

const isComplete = async (assetId: string, rung: string): Promise<boolean> => {
  const marker = renditionCompletePath(getEnv().dataDir, assetId, rung);
  return sharedStore() === null ? (await stat(marker).catch(() => null)) !== null : isMarkerStored(marker);
};

const segmentNames = (names: string[], segmentCount: number): number =>
  names.filter((name) => {
    const index = parseSegmentFileName(name);
    return index !== null && index < segmentCount;
  }).length;

// Where the rung's segments are counted: with S3 the bucket (segment jobs run on every worker, and
// other nodes list the rung only when each segment is there), else this node's disk. One listing
// per finished segment: a rung of a few thousand segments costs milliseconds each.
const storedSegmentCount = async (assetId: string, rung: string, segmentCount: number): Promise<number> => {
  const { dataDir } = getEnv();
  const directory = renditionDirectory(dataDir, assetId, rung);
  const store = sharedStore();
  if (store === null) return segmentNames(await readdir(directory).catch(() => [] as string[]), segmentCount);
  // This node's own uploads are behind its encodes: let them land before counting.
  await whenAssetTransfersSettled(assetId);
  const keys = await store.listFolder(`${objectKeyOf(dataDir, directory)}/`);
  return segmentNames(keys.map((key) => key.slice(key.lastIndexOf('/') + 1)), segmentCount);
};

const markCompleteIfAllStored = async (assetId: string, rung: string, segmentCount: number): Promise<void> => {
  if ((await storedSegmentCount(assetId, rung, segmentCount)) < segmentCount || (await isComplete(assetId, rung))) return;
  const marker = renditionCompletePath(getEnv().dataDir, assetId, rung);
  const data = Buffer.from(JSON.stringify({ segments: segmentCount }));
  await publishFile(marker, data);
  await shareFile(marker, data);
};

const isSegmentStored = async (assetId: string, rung: string, index: number): Promise<boolean> => {
  const { dataDir } = getEnv();
  const segment = mediaSegmentPath(dataDir, assetId, rung, index);
  if ((await stat(segment).catch(() => null)) !== null) return true;
  const store = sharedStore();
  return store !== null && (await store.stat(objectKeyOf(dataDir, segment))) !== null;
};

/** Queues one job per segment not stored yet of the asset's background rungs not complete yet. */
export const queueBackgroundSegments = async ({ assetId }: { assetId: string }): Promise<number> => {
  const plan = await loadPlan(assetId);
  if (!plan) return 0;
  const segmentCount = plan.video?.segments.length ?? 0;
  const missing: { rung: Rung; index: number }[] = [];
  for (const rung of plan.rungs.filter((candidate) => candidate.isBackground)) {
    if (await isComplete(assetId, rung.name)) continue;
    const before = missing.length;
    for (let index = 0; index < segmentCount; index++) {
      if (!(await isSegmentStored(assetId, rung.name, index))) missing.push({ rung, index });
    }
    // Every segment was there already (the marker write was interrupted): nothing to queue.
    if (missing.length === before) await markCompleteIfAllStored(assetId, rung.name, segmentCount);
  }
  // One transaction: thousands of rows commit at once, and no job is seen before all are queued.
  await getDb().$transaction(
    async (tx) => {
      for (const { rung, index } of missing) {
        await enqueueJob({
          transaction: tx,
          name: 'encode-background-segment-job',
          payload: { assetId, rung: rung.name, index },
          maxAttempts: 3,
          dedupeKey: `rung-segment:${encodeKey(assetId, rung.name, index)}`,
        });
      }
    },
    { timeout: 120_000 },
  );
  notifyJobEnqueued();
  return missing.length;
};


/** Encodes one segment of a background rung (if the asset and rung still exist), then lists the rung once it is whole. */
export const encodeBackgroundSegment = async ({
  assetId,
  rung: rungName,
  index,
  signal,
}: {
  assetId: string;
  rung: string;
  index: number;
  signal: AbortSignal;
}): Promise<void> => {
  const plan = await loadPlan(assetId);
  const rung = plan?.rungs.find((candidate) => candidate.name === rungName && candidate.isBackground);
  const segmentCount = plan?.video?.segments.length ?? 0;
  if (!plan || !rung || index >= segmentCount) return;
  // The encode goes on in the encoder scheduler when the job is stopped (shutdown, deletion); the
  // job itself returns at once, to be resumed (or dropped) by the queue.
  await untilAborted(ensureVideoSegment({ assetId, plan, rung, index, priority: ENCODE_PRIORITY.background }), signal);
  await markCompleteIfAllStored(assetId, rung.name, segmentCount);
};
