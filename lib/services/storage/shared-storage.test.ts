import { chmodSync, createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { getDb } from '../../db/client';
import { migrateDatabase } from '../../db/migrate-database';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { aac, ffmpeg, FFMPEG, x264 } from '../../media/test-support/media-fixtures';
import type { RunningSwiftS3 } from '../../setup/swift-s3.mjs';
import { assetDirectory, assetObjectPrefix } from '../../storage/asset-files';
import { startTestSwift, SWIFT_START_TIMEOUT_MS } from '../../storage/test-support/swift-fixture';
import { createAsset } from '../assets/create-asset';
import { deleteAsset } from '../assets/delete-asset';
import { getThumbnail } from '../images/get-thumbnail';
import { ingestAsset } from '../ingest/ingest-asset';
import { getRenditionFile } from '../playback/get-rendition-file';
import type { PlaybackAccess } from '../playback/resolve-playback';
import { segmentCache } from '../playback/runtime';
import { checkSharedStorage, sharedStore, whenAssetTransfersSettled } from './shared-storage';

// Keyframe with S3 storage (a real Swift + s3api): what one node encodes is served by a node that
// has none of the asset's files, from the bucket and without encoding it again; deleting the asset
// empties its prefix. The "other node" is this process after its DATA_DIR copy of the asset is
// deleted and its indexes forgotten. ffmpeg runs are counted by a wrapper that logs each one.

const BUCKET = 'keyframe-shared-storage-test';
let swift: RunningSwiftS3 | null = null;
let scratch = '';
let inputServer: http.Server | null = null;
let inputUrl = '';
let ffmpegLog = '';

const access: PlaybackAccess = { token: null, proof: null, audience: 'v', referrer: null, userAgent: null };

const ffmpegRuns = (): string[] => {
  try {
    return readFileSync(ffmpegLog, 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

const bucketKeys = async (prefix: string): Promise<string[]> => {
  if (!swift) return [];
  const client = new S3Client({
    endpoint: swift.endpoint,
    region: swift.region,
    forcePathStyle: true,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
  });
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
    return (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
  } finally {
    client.destroy();
  }
};

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

beforeAll(async () => {
  swift = await startTestSwift(BUCKET);
  if (!swift) return;
  scratch = mkdtempSync(path.join(os.tmpdir(), 'keyframe-shared-storage-'));
  const clip = path.join(scratch, 'clip.mp4');
  await ffmpeg(
    ...['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25:duration=12', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=12'],
    ...[...x264, '-g', '50', ...aac, '-movflags', '+faststart', '-shortest', clip],
  );
  inputServer = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(statSync(clip).size) });
    createReadStream(clip).pipe(response);
  });
  await new Promise<void>((resolve) => inputServer?.listen(0, '127.0.0.1', resolve));
  inputUrl = `http://127.0.0.1:${(inputServer.address() as AddressInfo).port}/clip.mp4`;

  ffmpegLog = path.join(scratch, 'ffmpeg-runs.log');
  const wrapper = path.join(scratch, 'ffmpeg');
  writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${ffmpegLog}'\nexec ${FFMPEG} "$@"\n`);
  chmodSync(wrapper, 0o755);

  Object.assign(process.env, {
    DATA_DIR: path.join(scratch, 'data'),
    DATABASE_URL: `file:${path.join(scratch, 'keyframe.db')}`,
    ALLOW_PRIVATE_INPUT_URLS: 'true',
    FFMPEG_PATH: wrapper,
    // Only the segments asked for are encoded, so the runs counted are theirs.
    PREFETCH_SEGMENTS: '0',
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: swift.endpoint,
    S3_REGION: swift.region,
    S3_ACCESS_KEY_ID: swift.accessKeyId,
    S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
  });
  expect(getEnv().storage.driver).toBe('s3');
  const root = path.resolve(__dirname, '../../..');
  await migrateDatabase(getEnv().database, {
    sqlite: path.join(root, 'prisma', 'migrations'),
    postgresql: path.join(root, 'prisma', 'postgres', 'migrations'),
  });
}, SWIFT_START_TIMEOUT_MS);

afterAll(async () => {
  if (!swift) return;
  sharedStore()?.close();
  await getDb().$disconnect();
  inputServer?.close();
  await swift.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('S3 storage across nodes', () => {
  it('serves what one node encoded from the bucket on a node without it, without encoding again; deleting the asset empties its prefix', async (context: TestContext) => {
    if (!swift) context.skip('Swift is not available here');
    const store = sharedStore();
    if (!store) throw new Error('S3 storage is not configured');
    expect(await checkSharedStorage()).toEqual({ ok: true, bucket: BUCKET });
    const created = await createAsset({ body: { inputs: [{ url: inputUrl }], playback_policies: ['public'] } });
    await ingestAsset({ assetId: created.id, signal: new AbortController().signal, log: getLogger() });
    const asset = await getDb().asset.findUniqueOrThrow({ where: { id: created.id }, include: { playbackIds: true } });
    expect(asset.status).toBe('ready');
    const prefix = assetObjectPrefix(asset.id);
    expect(await bucketKeys(`${prefix}source`)).toEqual([`${prefix}source`]);

    const playbackId = asset.playbackIds[0]!.id;
    const plan = JSON.parse(asset.planJson!) as { rungs: Array<{ name: string }> };
    const rendition = plan.rungs[0]!.name;
    const play = async (renditionName: string, file: string) => {
      const found = await getRenditionFile({ playbackId, rendition: renditionName, file, access });
      return readFile(found.path);
    };

    // Node A: encodes segment 0 (its init segment comes with it), the audio track, a thumbnail.
    const runsBefore = ffmpegRuns().length;
    const segment = await play(rendition, '0.m4s');
    const init = await play(rendition, 'init.mp4');
    const audio = await play('audio', '1.m4s');
    const thumbnail = await readFile((await getThumbnail({ playbackId, format: 'jpg', query: { time: '2' }, access })).path);
    const encodedOnA = ffmpegRuns().slice(runsBefore);
    expect(encodedOnA).toHaveLength(3);
    await whenAssetTransfersSettled(asset.id);
    await waitFor('the audio track in the bucket', async () => (await bucketKeys(`${prefix}hls/audio/complete.json`)).length === 1);
    expect(await bucketKeys(`${prefix}hls/${rendition}/`)).toEqual([`${prefix}hls/${rendition}/0.m4s`, `${prefix}hls/${rendition}/init.mp4`]);

    // Node B: nothing of the asset on its disk or in its indexes.
    const localCopy = assetDirectory(getEnv().dataDir, asset.id);
    await rm(localCopy, { recursive: true, force: true });
    segmentCache().forgetUnder(localCopy);

    const runsOnB = ffmpegRuns().length;
    expect(await play(rendition, '0.m4s')).toEqual(segment);
    expect(await play(rendition, 'init.mp4')).toEqual(init);
    expect(await play('audio', '1.m4s')).toEqual(audio);
    expect(await readFile((await getThumbnail({ playbackId, format: 'jpg', query: { time: '2' }, access })).path)).toEqual(thumbnail);
    expect(ffmpegRuns().slice(runsOnB)).toEqual([]);

    // A segment nobody encoded yet: encoded on B from the bucket's source, read through a
    // presigned URL since B has no copy of it.
    await play(rendition, '1.m4s');
    const encodedOnB = ffmpegRuns().slice(runsOnB);
    expect(encodedOnB).toHaveLength(1);
    expect(encodedOnB[0]).toContain('X-Amz-Signature=');
    await whenAssetTransfersSettled(asset.id);
    expect(await bucketKeys(`${prefix}hls/${rendition}/1.m4s`)).toHaveLength(1);

    await deleteAsset({ assetId: asset.id });
    expect(await bucketKeys(prefix)).toEqual([]);
  }, 180_000);
});
