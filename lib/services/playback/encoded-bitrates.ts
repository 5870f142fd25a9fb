import { getDb, type Db } from '../../db/client';
import { getLogger } from '../../log';
import type { SegmentRequest } from './playback-plan';

// What each rung's segments were encoded at, from their sizes as encoded (on any node): the
// AVERAGE-BANDWIDTH a multivariant playlist declares. A capped-CRF rung spends what the picture
// needs, so only its encodes can tell.

/** Notes one encoded segment's size; a failure costs the playlist an average, never the viewer its segment. */
export const recordEncodedSegment = ({ assetId, rung, index, plan }: SegmentRequest, bytes: number, db: Db = getDb()): Promise<void> => {
  const segment = plan.video?.segments[index];
  if (!segment) return Promise.resolve();
  const key = { assetId, rendition: rung.name, index };
  return db.encodedSegment
    .upsert({ where: { assetId_rendition_index: key }, create: { ...key, bytes, durationMs: Math.round(segment.duration * 1000) }, update: {} })
    .then(
      () => undefined,
      (error: unknown) => getLogger().warn({ err: error, assetId, rung: rung.name, index }, 'recording the size of an encoded segment failed'),
    );
};

/** Per rung name, the video bit rate (bits per second) of its segments encoded so far. */
export const encodedBitrates = async (assetId: string, db: Db = getDb()): Promise<Map<string, number>> => {
  const sums = await db.encodedSegment.groupBy({ by: ['rendition'], where: { assetId }, _sum: { bytes: true, durationMs: true } });
  const bitrates = new Map<string, number>();
  for (const { rendition, _sum: sum } of sums) {
    if (sum.bytes !== null && sum.durationMs !== null && sum.durationMs > 0) bitrates.set(rendition, Math.round((sum.bytes * 8 * 1000) / sum.durationMs));
  }
  return bitrates;
};
