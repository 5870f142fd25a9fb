import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listKeys } from '../support/cluster-services';
import { startSwiftS3, SwiftUnavailableError, type RunningSwiftS3 } from '../../harness/swift-s3.mjs';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// Two Keyframe nodes (two server processes, each with a DATA_DIR of its own) on one database and
// one S3 bucket (a real Swift + s3api): a segment encoded on node A is served by node B from the
// bucket, byte for byte, without B encoding anything; deleting the asset on B empties its prefix.

const BUCKET = 'keyframe-e2e-nodes';
let swift: RunningSwiftS3 | null = null;
let unavailable = '';
let shared = '';
let nodeA: KeyframeServer | undefined;
let nodeB: KeyframeServer | undefined;
let apiA: Api;
let apiB: Api;
let inputUrl = '';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
// Encodes of one segment, from the server's debug log (a multivariant playlist also warms segment 0).
const encodesOf = (server: KeyframeServer, rung: string, index: number) =>
  server
    .logs()
    .split('\n')
    .filter((line) => line.includes('"msg":"segment encoded"') && line.includes(`"rung":"${rung}","index":${index},`)).length;

const bucketKeys = (prefix: string): Promise<string[]> => listKeys(swift!, BUCKET, prefix);

test.skip(isCluster(), 'starts its own two single-process nodes on SQLite and a Swift of its own (run by the default suite); the cluster run has e2e/api/cluster.spec.ts');

test.beforeAll(async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(240_000);
  try {
    swift = await startSwiftS3({ bucket: BUCKET });
  } catch (error) {
    if (!(error instanceof SwiftUnavailableError)) throw error;
    unavailable = error.message;
    return;
  }
  shared = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-nodes-'));
  const env = {
    DATABASE_URL: `file:${path.join(shared, 'keyframe.db')}`,
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: swift.endpoint,
    S3_REGION: swift.region,
    S3_ACCESS_KEY_ID: swift.accessKeyId,
    S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
    // Only what is asked for is encoded, and each encode logs a line.
    PREFETCH_SEGMENTS: '0',
    FILL_IDLE_ENCODERS: 'false',
    LOG_LEVEL: 'debug',
  };
  nodeA = await startKeyframe({ label: 'node-a', env });
  nodeB = await startKeyframe({ label: 'node-b', env });
  const token = await nodeA.createToken();
  apiA = new Api(nodeA.baseUrl, token);
  apiB = new Api(nodeB.baseUrl, token);
  await playbackFixtures.ensure('landscape1080p');
  inputUrl = playbackMedia.fileUrl(playbackFixtures.file('landscape1080p'));
});

test.afterAll(async () => {
  await disposeKeyframe(nodeA, nodeB);
  await swift?.stop();
  if (shared) rmSync(shared, { recursive: true, force: true });
});

test('a segment encoded on one node is served by another from the bucket without an encode; deleting the asset empties its prefix', async () => {
  test.skip(swift === null, `Swift is not available: ${unavailable}`);
  test.setTimeout(180_000);
  const { assetId, playbackId } = await createPlayableAsset(apiA, inputUrl);
  const prefix = `assets/${assetId}/`;
  await expect.poll(() => bucketKeys(`${prefix}source`), { timeout: 60_000 }).toEqual([`${prefix}source`]);

  const variant = (await loadMultivariant(multivariantUrl(nodeA!, playbackId))).video[0]!;
  const playlist = parseMediaPlaylist((await httpGet(variant.url)).text, variant.url);
  const segmentPath = new URL(playlist.segments[1]!.url).pathname;
  const initPath = new URL(playlist.map!.url).pathname;

  expect(encodesOf(nodeA!, variant.name, 1)).toBe(0);
  const fromA = await httpGet(nodeA!.url(segmentPath));
  expect(fromA.status).toBe(200);
  expect(encodesOf(nodeA!, variant.name, 1)).toBe(1);
  const initFromA = await httpGet(nodeA!.url(initPath));
  await expect
    .poll(() => bucketKeys(`${prefix}hls/${variant.name}/`), { timeout: 30_000 })
    .toEqual(expect.arrayContaining([`${prefix}hls/${variant.name}/1.m4s`, `${prefix}hls/${variant.name}/init.mp4`]));

  const fromB = await httpGet(nodeB!.url(segmentPath));
  expect(fromB.status).toBe(200);
  expect(sha256(fromB.body)).toBe(sha256(fromA.body));
  expect(sha256((await httpGet(nodeB!.url(initPath))).body)).toBe(sha256(initFromA.body));
  expect(encodesOf(nodeB!, variant.name, 1)).toBe(0);
  expect(nodeB!.logs()).not.toContain('"msg":"segment encoded"');

  // Without Redis a node does not hear of another's deletion (see docs/scaling-out.md): let node A
  // finish uploading the audio track it encodes after readiness before deleting through node B.
  await expect.poll(() => bucketKeys(`${prefix}hls/audio/complete.json`), { timeout: 60_000 }).toEqual([`${prefix}hls/audio/complete.json`]);
  expect((await apiB.delete(`/video/v1/assets/${assetId}`)).status).toBe(204);
  expect(await bucketKeys(prefix)).toEqual([]);
});
