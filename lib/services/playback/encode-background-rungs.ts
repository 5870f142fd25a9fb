import { stat } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import type { Rung } from '../../media/hls/ladder';
import { mediaSegmentPath, objectKeyOf, renditionCompletePath } from '../../storage/asset-files';
import type { PlaybackPlan } from './playback-plan';
import { publishFile } from '../../storage/atomic-file';
import { isMarkerStored, shareFile, sharedStore, whenAssetTransfersSettled } from '../storage/shared-storage';
import { ENCODE_PRIORITY } from './runtime';
import { ensureVideoSegment } from './video-segments';

// Rungs above 1080p cannot be encoded in real time on a small machine, so they are encoded segment
// by segment in the background (behind viewers' on-demand requests) and listed once complete.
export const encodeBackgroundRungs = async ({ assetId, signal }: { assetId: string; signal: AbortSignal }): Promise<void> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { planJson: true } });
  if (!asset?.planJson) return;
  const plan = JSON.parse(asset.planJson) as PlaybackPlan;
  const segmentCount = plan.video?.segments.length ?? 0;
  for (const rung of plan.rungs.filter((candidate) => candidate.isBackground)) {
    const marker = renditionCompletePath(getEnv().dataDir, assetId, rung.name);
    if (sharedStore() === null ? await stat(marker).catch(() => null) : await isMarkerStored(marker)) continue;
    for (let index = 0; index < segmentCount; index++) {
      signal.throwIfAborted();
      await ensureVideoSegment({ assetId, plan, rung, index, priority: ENCODE_PRIORITY.background });
    }
    const data = Buffer.from(JSON.stringify({ segments: segmentCount }));
    await publishFile(marker, data);
    if (await isRungInBucket(assetId, rung, segmentCount)) await shareFile(marker, data);
  }
};

// Whether every segment of the rung reached the bucket (with S3): other nodes list a rung only
// when its marker is there, and then must find each segment there too. Segments are uploaded
// behind their encodes, and an upload that failed is not retried, so this checks.
const UPLOAD_CHECKS_AT_ONCE = 8;
const isRungInBucket = async (assetId: string, rung: Rung, segmentCount: number): Promise<boolean> => {
  const store = sharedStore();
  if (store === null) return false;
  await whenAssetTransfersSettled(assetId);
  const { dataDir } = getEnv();
  for (let from = 0; from < segmentCount; from += UPLOAD_CHECKS_AT_ONCE) {
    const indexes = Array.from({ length: Math.min(UPLOAD_CHECKS_AT_ONCE, segmentCount - from) }, (_, offset) => from + offset);
    const found = await Promise.all(indexes.map((index) => store.stat(objectKeyOf(dataDir, mediaSegmentPath(dataDir, assetId, rung.name, index)))));
    if (found.includes(null)) return false;
  }
  return true;
};
