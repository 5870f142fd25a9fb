import { stat } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { renditionCompletePath } from '../../storage/asset-files';
import type { PlaybackPlan } from './playback-plan';
import { publishFile } from '../../storage/atomic-file';
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
    if (await stat(marker).catch(() => null)) continue;
    for (let index = 0; index < segmentCount; index++) {
      signal.throwIfAborted();
      await ensureVideoSegment({ assetId, plan, rung, index, priority: ENCODE_PRIORITY.background });
    }
    await publishFile(marker, Buffer.from(JSON.stringify({ segments: segmentCount })));
  }
};
