import { readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { assetDirectory, mediaSegmentPath, objectKeyOf } from '../../storage/asset-files';
import { SWIFT_START_TIMEOUT_MS } from '../../storage/test-support/swift-fixture';
import { createAsset } from '../../services/assets/create-asset';
import { createPlaybackId } from '../../services/playback-ids/create-playback-id';
import { ingestAsset } from '../../services/ingest/ingest-asset';
import { segmentCache } from '../../services/playback/runtime';
import { sharedStore, whenAssetTransfersSettled } from '../../services/storage/shared-storage';
import { makeSwiftBucketPublic, startS3Node, type S3Node } from '../../services/storage/test-support/s3-node';
import { servePlayback } from './serve-playback';

// The playback host with S3_PUBLIC_URL: a segment of a public playback ID that is in the bucket is
// answered with a 302 to the bucket's public URL (here Swift's own, with the container readable
// by anyone), which serves the same bytes; playlists and signed playback IDs are never redirected.

const BUCKET = 'keyframe-redirect-test';
let node: S3Node | null = null;
let publicUrl = '';
let server: http.Server | null = null;
let origin = '';

beforeAll(async () => {
  node = await startS3Node({
    bucket: BUCKET,
    env: async (swift) => {
      publicUrl = await makeSwiftBucketPublic(swift);
      // No encode nobody asked for: a fresh node otherwise measures an encode's cost on segment 0 of
      // the start rung when the asset is ready (measure-encode-cost.ts), and on a busy machine that
      // segment is already in the bucket (a 302) before the test asks for it "just encoded".
      return { S3_PUBLIC_URL: publicUrl, FILL_IDLE_ENCODERS: 'false' };
    },
  });
  if (!node) return;
  server = http.createServer((request, response) => {
    if (!servePlayback(request, response)) response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, SWIFT_START_TIMEOUT_MS);

afterAll(async () => {
  server?.close();
  await node?.stop();
});

const get = (path: string) => fetch(`${origin}${path}`, { redirect: 'manual' });

describe('playback host with S3_PUBLIC_URL', () => {
  it('redirects segments of public playback IDs that are in the bucket, never playlists or signed playback', async (context: TestContext) => {
    if (!node) return context.skip('Swift is not available here');
    const created = await createAsset({ body: { inputs: [{ url: node.inputUrl }], playback_policies: ['public'] } });
    await ingestAsset({ assetId: created.id, signal: new AbortController().signal, log: getLogger() });
    const asset = created;
    const publicId = asset.playbackIds[0]!.id;
    const signedId = (await createPlaybackId({ assetId: asset.id, policy: 'signed' })).id;

    const multivariant = await get(`/${publicId}.m3u8`);
    expect(multivariant.status).toBe(200);
    const rendition = /^[^#\s]+\/(\d+p)\.m3u8$/m.exec(await multivariant.text())?.[1] ?? '';
    expect((await get(`/${publicId}/${rendition}.m3u8`)).status).toBe(200);

    // Just encoded: served from this node while its upload runs; afterwards, redirected.
    const first = await get(`/${publicId}/${rendition}/0.m4s`);
    expect(first.status).toBe(200);
    const encoded = Buffer.from(await first.arrayBuffer());
    await whenAssetTransfersSettled(asset.id);
    const segmentKey = objectKeyOf(getEnv().dataDir, mediaSegmentPath(getEnv().dataDir, asset.id, rendition, 0));
    const redirected = await get(`/${publicId}/${rendition}/0.m4s`);
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe(`${publicUrl}/${segmentKey}`);
    expect(redirected.headers.get('access-control-allow-origin')).toBe('*');
    expect(redirected.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(Buffer.from(await (await fetch(redirected.headers.get('location')!)).arrayBuffer()).equals(encoded)).toBe(true);
    expect((await get(`/${publicId}/${rendition}/init.mp4`)).status).toBe(302);

    // Signed playback is checked here on every request: no token, no redirect.
    expect((await get(`/${signedId}/${rendition}/0.m4s`)).status).toBe(403);

    // A segment another node put in the bucket: redirected with neither an encode nor a copy here.
    const runs = node.ffmpegRuns().length;
    const otherNodes = mediaSegmentPath(getEnv().dataDir, asset.id, rendition, 2);
    await sharedStore()!.put(objectKeyOf(getEnv().dataDir, otherNodes), Buffer.from('encoded elsewhere'));
    const elsewhere = await get(`/${publicId}/${rendition}/2.m4s`);
    expect(elsewhere.status).toBe(302);
    expect(await (await fetch(elsewhere.headers.get('location')!)).text()).toBe('encoded elsewhere');
    expect(node.ffmpegRuns().length).toBe(runs);
    await expect(readFile(otherNodes)).rejects.toMatchObject({ code: 'ENOENT' });

    // Neither on this node nor in the bucket: encoded here and served from here.
    await rm(assetDirectory(getEnv().dataDir, asset.id), { recursive: true, force: true });
    segmentCache().forgetUnder(assetDirectory(getEnv().dataDir, asset.id));
    const cold = await get(`/${publicId}/${rendition}/1.m4s`);
    expect(cold.status).toBe(200);
    expect(node.ffmpegRuns().length).toBe(runs + 1);
  }, 180_000);
});
