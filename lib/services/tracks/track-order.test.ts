import { afterEach, describe, expect, test, vi } from 'vitest';
import type { Db } from '../../db/client';
import { createTestPostgresDatabase, createTestSqliteDatabase, isTestPostgresReachable, migratedClients, type TestDatabase } from '../../db/test-databases';
import { trackOrderBy } from '../../schemas/track';
import { insertTracks } from './insert-tracks';

// The order tracks are listed in (API, playlists): the rows of a source's audio streams are made
// at one instant, and come out in stream order whatever their ids; an added track made at that
// same instant (no stream index) comes after them, on either database.

const postgresReachable = await isTestPostgresReachable();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each([
  { name: 'SQLite', make: createTestSqliteDatabase, skip: false },
  { name: 'PostgreSQL at 127.0.0.1:5432', make: (): Promise<TestDatabase> => createTestPostgresDatabase(), skip: !postgresReachable },
])('trackOrderBy on $name', ({ make, skip }) => {
  test.skipIf(skip)('one creation instant: stream 0, 1, 2, then the added file, whatever the ids', async () => {
    const [db] = (await migratedClients(make, 1, cleanups)) as [Db];
    await db.asset.create({ data: { id: 'asset1', status: 'ready', encodingTier: 'smart', inputsJson: '[]' } });
    const createdAt = new Date('2026-01-01T00:00:00.000Z');
    const row = (id: string, sourceStreamIndex: number | null) => ({ id, assetId: 'asset1', type: 'audio', status: 'ready', name: id, primary: sourceStreamIndex === 0, sourceStreamIndex, createdAt });
    await db.track.createMany({ data: [row('zzz', 0), row('aaa', null), row('mmm', 2), row('bbb', 1)] });
    const listed = await db.track.findMany({ where: { assetId: 'asset1' }, orderBy: trackOrderBy, select: { id: true } });
    expect(listed.map((track) => track.id)).toEqual(['zzz', 'bbb', 'mmm', 'aaa']);
  });

  test.skipIf(skip)('tracks added in one call come out in the order they were asked for', async () => {
    const [db] = (await migratedClients(make, 1, cleanups)) as [Db];
    await db.asset.create({ data: { id: 'asset1', status: 'ready', encodingTier: 'smart', inputsJson: '[]' } });
    const names = Array.from({ length: 12 }, (_, index) => `track ${index}`);
    // A stopped clock: every row is made in the same millisecond, as happens on a fast machine.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00.000Z') });
    try {
      await db.$transaction((tx) =>
        insertTracks(tx, 'asset1', names.map((name) => ({ kind: 'text', url: 'https://example.com/subtitles.vtt', languageCode: 'en', name })), { announce: false }),
      );
    } finally {
      vi.useRealTimers();
    }
    const listed = await db.track.findMany({ where: { assetId: 'asset1' }, orderBy: trackOrderBy, select: { name: true } });
    expect(listed.map((track) => track.name)).toEqual(names);
  });
});
