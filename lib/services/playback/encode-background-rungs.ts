import { readdir, stat } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { enqueueJob } from '../../jobs/queue';
import { notifyJobEnqueued } from '../../jobs/signals';
import type { Rung } from '../../media/hls/ladder';
import { mediaSegmentPath, renditionCompletePath, renditionDirectory } from '../../storage/asset-files';
import type { PlaybackPlan } from './playback-plan';
import { publishFile } from './publish-file';
import { ENCODE_PRIORITY, encodeKey } from './runtime';
import { ensureVideoSegment } from './video-segments';

// Rungs above 1080p cannot be encoded in real time on a small machine, so they are encoded segment
// by segment in the background (behind viewers' on-demand requests) and listed once complete. Each
// segment is a job of its own, so every worker (every node, with several) can take one: N workers
// finish a rung about N times sooner. The segment job that finds its rung's last segment stored
// marks the rung complete.

const loadPlan = async (assetId: string): Promise<PlaybackPlan | null> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { planJson: true } });
  return asset?.planJson ? (JSON.parse(asset.planJson) as PlaybackPlan) : null;
};

const isComplete = async (assetId: string, rung: string) =>
  (await stat(renditionCompletePath(getEnv().dataDir, assetId, rung)).catch(() => null)) !== null;

// One listing per finished segment: a rung of a few thousand segments costs milliseconds each.
const markCompleteIfAllStored = async (assetId: string, rung: string, segmentCount: number): Promise<void> => {
  const names = await readdir(renditionDirectory(getEnv().dataDir, assetId, rung)).catch(() => [] as string[]);
  const stored = names.filter((name) => /^\d+\.m4s$/.test(name) && Number(name.slice(0, -'.m4s'.length)) < segmentCount).length;
  if (stored < segmentCount || (await isComplete(assetId, rung))) return;
  await publishFile(renditionCompletePath(getEnv().dataDir, assetId, rung), Buffer.from(JSON.stringify({ segments: segmentCount })));
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
      const stored = await stat(mediaSegmentPath(getEnv().dataDir, assetId, rung.name, index)).catch(() => null);
      if (!stored) missing.push({ rung, index });
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

const untilAborted = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });

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
