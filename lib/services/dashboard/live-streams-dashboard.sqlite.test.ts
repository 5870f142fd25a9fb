import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getDb } from '../../db/client';
import { setUpTestInstallation, type TestInstallation } from '../../db/test-support/test-installation';
import { ApiError } from '../../errors/api-error';
import { createLiveStream } from '../live-streams/create-live-stream';
import { getLiveStreamRecordings } from './get-live-stream-recordings';
import { pageLiveStreams } from './page-live-streams';

// The dashboard's live stream reads on a real SQLite database: the table's pages with their total,
// and a stream's recent recordings in the order the page lists them.

let installation: TestInstallation | undefined;

beforeAll(async () => {
  installation = await setUpTestInstallation('live-dashboard');
});

afterAll(async () => {
  await installation?.tearDown();
});

const recordingOf = (liveStreamId: string, id: string, status: string) =>
  getDb().asset.create({ data: { id, status, encodingTier: 'smart', ingestType: 'live_rtmp', inputsJson: '[]', liveStreamId } });

describe('dashboard live stream reads', () => {
  test('pages: newest first, with the total of every stream', async () => {
    const created = [];
    for (const title of ['first', 'second', 'third']) created.push(await createLiveStream({ body: { meta: { title } } }));
    const first = await pageLiveStreams({ page: 1, limit: 2 });
    const second = await pageLiveStreams({ page: 2, limit: 2 });
    expect(first.total).toBe(3);
    expect(second.total).toBe(3);
    const ids = [...first.liveStreams, ...second.liveStreams].map((stream) => stream.id);
    expect(new Set(ids)).toEqual(new Set(created.map((stream) => stream.id)));
    expect(second.liveStreams).toHaveLength(1);
  });

  test('recordings: newest first, a deleted one kept by id with no asset', async () => {
    const stream = await createLiveStream({ body: { playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] } } });
    expect(await getLiveStreamRecordings({ liveStreamId: stream.id })).toEqual([]);

    const [older, deleted, newest] = ['A', 'B', 'C'].map((letter) => letter.repeat(44));
    await recordingOf(stream.id, older!, 'ready');
    await recordingOf(stream.id, newest!, 'preparing');
    // recent_asset_ids is stored oldest first; the middle recording was deleted since.
    await getDb().liveStream.update({ where: { id: stream.id }, data: { recentAssetIdsJson: JSON.stringify([older, deleted, newest]) } });

    const recordings = await getLiveStreamRecordings({ liveStreamId: stream.id });
    expect(recordings.map(({ assetId, asset }) => [assetId, asset?.status ?? null])).toEqual([
      [newest, 'preparing'],
      [deleted, null],
      [older, 'ready'],
    ]);
  });

  test('recordings of an unknown stream: not found', async () => {
    const missing = getLiveStreamRecordings({ liveStreamId: 'Z'.repeat(44) });
    await expect(missing).rejects.toBeInstanceOf(ApiError);
    await expect(missing).rejects.toMatchObject({ type: 'not_found' });
  });
});
