import { afterEach, describe, expect, test } from 'vitest';
import type { Db } from '../../db/client';
import { createTestPostgresDatabase, createTestSqliteDatabase, isTestPostgresReachable, migratedClients, type TestDatabase } from '../../db/test-databases';
import { buildLadder } from '../../media/hls/ladder';
import { buildSegmentPlan } from '../../media/hls/segment-plan';
import { encodedBitrates, recordEncodedSegment } from './encoded-bitrates';
import type { PlaybackPlan } from './playback-plan';

// A rung's AVERAGE-BANDWIDTH is what its segments were encoded at: sizes noted once per segment
// (a re-encode or a second node's encode of it counts once), summed per rung over their durations.

const postgresReachable = await isTestPostgresReachable();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const rungs = buildLadder({ display: { width: 1280, height: 720 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });
const plan: PlaybackPlan = { video: buildSegmentPlan({ duration: 10, frameRate: 30, constantFrameRate: true }), rungs, audio: null };

describe.each([
  { name: 'SQLite', make: createTestSqliteDatabase, skip: false },
  { name: 'PostgreSQL at 127.0.0.1:5432', make: (): Promise<TestDatabase> => createTestPostgresDatabase(), skip: !postgresReachable },
])('encodedBitrates on $name', ({ make, skip }) => {
  test.skipIf(skip)('per rung, the bytes of its encoded segments over their durations, each segment once', async () => {
    const [db] = (await migratedClients(make, 1, cleanups)) as [Db];
    await db.asset.create({ data: { id: 'asset1', status: 'ready', encodingTier: 'smart', inputsJson: '[]' } });
    const [low, , , high] = rungs;
    const request = (rung: typeof low, index: number) => ({ assetId: 'asset1', plan, rung: rung!, index });
    // Segments 0 and 1 last 2 s, segment 2 4 s.
    await recordEncodedSegment(request(low, 0), 50_000, db);
    await recordEncodedSegment(request(low, 2), 100_000, db);
    await recordEncodedSegment(request(low, 2), 999_999, db);
    await recordEncodedSegment(request(high, 1), 250_000, db);
    // Past the plan's end: nothing to note.
    await recordEncodedSegment(request(high, 99), 1, db);
    const bitrates = await encodedBitrates('asset1', db);
    expect(Object.fromEntries(bitrates)).toEqual({ [low!.name]: 200_000, [high!.name]: 1_000_000 });
    expect((await encodedBitrates('another', db)).size).toBe(0);
  });
});
