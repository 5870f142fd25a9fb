import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { assetDirectory, assetObjectPrefix, mediaSegmentPath, overlayImagePath, sourceFilePath } from '../../storage/asset-files';
import { runProcess } from '../../media/run-process';
import { assetSettingsSchema } from '../../schemas/asset-settings';
import { createS3Store } from '../../storage/s3-store';
import { uploadDirectory } from '../../storage/upload-files';
import { s3OptionsOf, SWIFT_START_TIMEOUT_MS } from '../../storage/test-support/swift-fixture';
import { createAsset } from '../assets/create-asset';
import { deleteAsset } from '../assets/delete-asset';
import { getAssetRenditions } from '../dashboard/get-asset-renditions';
import { getThumbnail } from '../images/get-thumbnail';
import { ingestAsset } from '../ingest/ingest-asset';
import { getRenditionFile } from '../playback/get-rendition-file';
import type { PlaybackAccess } from '../playback/resolve-playback';
import { segmentCache } from '../playback/runtime';
import { createUpload } from '../uploads/create-upload';
import { getUpload } from '../uploads/get-upload';
import { receiveUploadBytes } from '../uploads/receive-upload-bytes';
import { uploadUrl } from '../uploads/upload-record';
import { checkSharedStorage } from './check-shared-storage';
import { copyFromBucket, fetchFromBucket, sharedStore, whenAssetTransfersSettled } from './shared-storage';
import { startS3Node, type S3Node } from './test-support/s3-node';
import { childProcesses } from '../processes/child-processes';

// Keyframe with S3 storage (a real Swift + s3api): what one node encoded is served by a node that
// has none of the asset's files, from the bucket and without encoding it again; deleting the asset
// empties its prefix. The "other node" is this process after its DATA_DIR copy of the asset is
// deleted and its indexes forgotten. ffmpeg runs are counted by a wrapper that logs each one.

const BUCKET = 'keyframe-shared-storage-test';
let node: S3Node | null = null;

// Deep equality of large buffers element by element takes seconds; their digests compare at once.
const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const access: PlaybackAccess = { token: null, proof: null, audience: 'v', referrer: null, userAgent: null };

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

beforeAll(async () => {
  // Counting encodes per node: no encode nobody asked for (the cost measurement at ready, the fill).
  node = await startS3Node({ bucket: BUCKET, env: () => ({ FILL_IDLE_ENCODERS: 'false' }) });
}, SWIFT_START_TIMEOUT_MS);

afterAll(async () => {
  await node?.stop();
});

describe('S3 storage across nodes', () => {
  it('serves what one node encoded from the bucket on a node without it, without encoding again; deleting the asset empties its prefix', async (context: TestContext) => {
    if (!node) return context.skip('Swift is not available here');
    const { inputUrl, ffmpegRuns, bucketKeys } = node;
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
      if (!('path' in found)) throw new Error(`redirected to ${found.redirectUrl} although S3_PUBLIC_URL is not set`);
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

    // The asset page counts what any node encoded.
    const renditions = await getAssetRenditions({ assetId: asset.id });
    expect(renditions.find((status) => status.name === rendition)?.encodedSegments).toEqual([0]);

    const runsOnB = ffmpegRuns().length;
    expect(digest(await play(rendition, '0.m4s'))).toBe(digest(segment));
    expect(digest(await play(rendition, 'init.mp4'))).toBe(digest(init));
    expect(digest(await play('audio', '1.m4s'))).toBe(digest(audio));
    expect(digest(await readFile((await getThumbnail({ playbackId, format: 'jpg', query: { time: '2' }, access })).path))).toBe(digest(thumbnail));
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

  it('ingests a direct upload on a node other than the one that received its bytes', async (context: TestContext) => {
    if (!node) return context.skip('Swift is not available here');
    const bytes = Buffer.from(await (await fetch(node.inputUrl)).arrayBuffer());
    const upload = await createUpload({ body: { new_asset_settings: { playback_policies: ['public'] } } });
    const token = new URL(await uploadUrl(upload)).searchParams.get('token');
    const received = await receiveUploadBytes({ uploadId: upload.id, token, contentRange: undefined, contentLength: bytes.length, body: Readable.from([bytes]) });
    expect(received).toEqual({ complete: true, received: bytes.length });
    const assetId = (await getUpload({ uploadId: upload.id })).assetId!;

    // The receiving node uploads the bytes as the asset's source, then drops its copy.
    await whenAssetTransfersSettled(assetId);
    expect(await node.bucketKeys(assetObjectPrefix(assetId))).toEqual([`${assetObjectPrefix(assetId)}source`]);
    // Dropped right after the upload to the bucket settled (a step behind it).
    await waitFor('the received copy to be dropped', async () => !existsSync(uploadDirectory(getEnv().dataDir, upload.id)), 5_000);

    // Another node's ingest finds the bytes in the bucket.
    await ingestAsset({ assetId, signal: new AbortController().signal, log: getLogger() });
    expect(await getDb().asset.findUniqueOrThrow({ where: { id: assetId } })).toMatchObject({ status: 'ready', sourceBytes: BigInt(bytes.length) });
    expect(digest(await readFile(sourceFilePath(getEnv().dataDir, assetId)))).toBe(digest(bytes));

    await deleteAsset({ assetId });
    expect(await node.bucketKeys(assetObjectPrefix(assetId))).toEqual([]);
  }, 120_000);

  it('shares a watermark image at ingest; a node without it copies it from the bucket before encoding', async (context: TestContext) => {
    if (!node) return context.skip('Swift is not available here');
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'keyframe-watermark-'));
    const image = path.join(scratch, 'mark.png');
    await runProcess({ command: 'ffmpeg', args: ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=64x32', '-frames:v', '1', image], children: childProcesses() });
    const server = http.createServer((_request, response) => response.end(readFileSync(image)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const imageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mark.png`;
      const created = await createAsset({
        body: assetSettingsSchema.parse({
          inputs: [{ url: node.inputUrl }, { url: imageUrl, overlay_settings: { vertical_align: 'bottom', width: '20%' } }],
          playback_policies: ['public'],
        }),
      });
      await ingestAsset({ assetId: created.id, signal: new AbortController().signal, log: getLogger() });
      const asset = await getDb().asset.findUniqueOrThrow({ where: { id: created.id }, include: { playbackIds: true } });
      expect(asset.status).toBe('ready');
      const prefix = assetObjectPrefix(asset.id);
      const stored = overlayImagePath(getEnv().dataDir, asset.id, 0);
      expect(await node.bucketKeys(`${prefix}overlays/`)).toEqual([`${prefix}overlays/0.png`]);
      const normalised = await readFile(stored);

      // Another node: none of the asset's files.
      const localCopy = assetDirectory(getEnv().dataDir, asset.id);
      await rm(localCopy, { recursive: true, force: true });
      segmentCache().forgetUnder(localCopy);
      const runsOnB = node.ffmpegRuns().length;
      const rendition = (JSON.parse(asset.planJson!) as { rungs: Array<{ name: string }> }).rungs[0]!.name;
      const found = await getRenditionFile({ playbackId: asset.playbackIds[0]!.id, rendition, file: '0.m4s', access });
      expect('path' in found).toBe(true);
      const encodes = node.ffmpegRuns().slice(runsOnB);
      expect(encodes).toHaveLength(1);
      expect(encodes[0]).toContain(stored);
      expect(digest(await readFile(stored))).toBe(digest(normalised));
      await deleteAsset({ assetId: asset.id });
    } finally {
      server.close();
      await rm(scratch, { recursive: true, force: true });
    }
  }, 120_000);

  it('counts a bucket it cannot reach as not having a file (the node then produces it), except where the file is needed', async (context: TestContext) => {
    if (!node) return context.skip('Swift is not available here');
    const unreachable = createS3Store({ ...s3OptionsOf(node.swift), endpoint: 'http://127.0.0.1:9' });
    try {
      const segment = mediaSegmentPath(getEnv().dataDir, 'unreachable', '540p', 0);
      expect(await fetchFromBucket(unreachable, segment)).toBe(false);
      await expect(copyFromBucket(unreachable, segment)).rejects.toThrow();
      expect(existsSync(segment)).toBe(false);
    } finally {
      unreachable.close();
    }
  });

  it('does not wait out a bucket that hangs for a file it can produce: a miss after 4 s, then misses without asking for a while', async (context: TestContext) => {
    if (!node) return context.skip('Swift is not available here');
    // Accepts connections and never answers, as a stalled S3 endpoint does.
    const held = new Set<net.Socket>();
    const stalled = net.createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const hanging = createS3Store({ ...s3OptionsOf(node.swift), endpoint: `http://127.0.0.1:${(stalled.address() as AddressInfo).port}` });
    try {
      const first = Date.now();
      expect(await fetchFromBucket(hanging, mediaSegmentPath(getEnv().dataDir, 'hanging', '540p', 0))).toBe(false);
      expect(Date.now() - first).toBeGreaterThanOrEqual(3_900);
      expect(Date.now() - first).toBeLessThan(6_000);
      const connections = held.size;
      const second = Date.now();
      expect(await fetchFromBucket(hanging, mediaSegmentPath(getEnv().dataDir, 'hanging', '540p', 1))).toBe(false);
      expect(Date.now() - second, 'the hung bucket is not asked again at once').toBeLessThan(500);
      expect(held.size).toBe(connections);
    } finally {
      hanging.close();
      for (const socket of held) socket.destroy();
      stalled.close();
    }
  });
});
