import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getDb } from '../../db/client';
import { setUpTestInstallation, type TestInstallation } from '../../db/test-support/test-installation';
import { mediaSegmentPath, renditionCompletePath } from '../../storage/asset-files';
import { encodeBackgroundSegment, queueBackgroundSegments } from './encode-background-rungs';

// Background rungs as one job per segment: what gets queued, and who lists a rung once it is whole.
// Segments "encoded" here are files written by the test (ensureVideoSegment finds them stored and
// encodes nothing); the encode itself is covered by the playback e2e, on an installation of this
// file's own (setUpTestInstallation).

let installation: TestInstallation | undefined;

beforeAll(async () => {
  installation = await setUpTestInstallation('background-rungs');
});

afterAll(async () => {
  await installation?.tearDown();
});

const rung = (name: string, isBackground: boolean) => ({ name, isBackground, width: 16, height: 9, maxBitrate: 1 });

const createReadyAsset = async (id: string) => {
  const plan = {
    rungs: [rung('1080p', false), rung('1440p', true), rung('2160p', true)],
    video: { segments: [0, 1, 2].map((index) => ({ start: index * 4, duration: 4 })) },
  };
  await getDb().asset.create({
    data: { id, status: 'ready', encodingTier: 'smart', inputsJson: '[]', planJson: JSON.stringify(plan) },
  });
};

const storeSegment = (assetId: string, rungName: string, index: number) => {
  const file = mediaSegmentPath(installation!.dataDir, assetId, rungName, index);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'segment');
};

const queuedSegments = async (assetId: string) =>
  (await getDb().job.findMany({ where: { name: 'encode-background-segment-job' }, orderBy: { dedupeKey: 'asc' } }))
    .map((job) => JSON.parse(job.payloadJson) as { assetId: string; rung: string; index: number })
    .filter((payload) => payload.assetId === assetId)
    .map(({ rung: name, index }) => `${name}/${index}`);

describe('background rungs, one job per segment', () => {
  test('queues each missing segment of each incomplete background rung once, and nothing of the others', async () => {
    await createReadyAsset('asset1');
    storeSegment('asset1', '1440p', 1);
    // 2160p is whole already, only its marker is missing (a crash between the last segment and it).
    for (const index of [0, 1, 2]) storeSegment('asset1', '2160p', index);

    expect(await queueBackgroundSegments({ assetId: 'asset1' })).toBe(2);
    expect(await queuedSegments('asset1')).toEqual(['1440p/0', '1440p/2']);
    expect(JSON.parse(readFileSync(renditionCompletePath(installation!.dataDir, 'asset1', '2160p'), 'utf8'))).toEqual({ segments: 3 });

    // Queued again (the fan-out job retried): the dedupe keys keep one job per segment.
    await queueBackgroundSegments({ assetId: 'asset1' });
    expect(await queuedSegments('asset1')).toEqual(['1440p/0', '1440p/2']);
  });

  test('the segment job that finds its rung whole lists the rung; the ones before it do not', async () => {
    await createReadyAsset('asset2');
    const signal = new AbortController().signal;
    const marker = renditionCompletePath(installation!.dataDir, 'asset2', '1440p');

    for (const index of [2, 0]) {
      storeSegment('asset2', '1440p', index);
      await encodeBackgroundSegment({ assetId: 'asset2', rung: '1440p', index, signal });
      expect(() => readFileSync(marker)).toThrow();
    }
    storeSegment('asset2', '1440p', 1);
    await encodeBackgroundSegment({ assetId: 'asset2', rung: '1440p', index: 1, signal });
    expect(JSON.parse(readFileSync(marker, 'utf8'))).toEqual({ segments: 3 });
  });

  test('a segment job for a deleted asset, or a rung no longer background, does nothing', async () => {
    const signal = new AbortController().signal;
    await expect(encodeBackgroundSegment({ assetId: 'gone', rung: '1440p', index: 0, signal })).resolves.toBeUndefined();
    await createReadyAsset('asset3');
    await expect(encodeBackgroundSegment({ assetId: 'asset3', rung: '1080p', index: 0, signal })).resolves.toBeUndefined();
    expect(() => readFileSync(mediaSegmentPath(installation!.dataDir, 'asset3', '1080p', 0))).toThrow();
  });
});
