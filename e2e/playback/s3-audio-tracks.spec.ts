import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CLUSTER_REDIS_URL, deleteRedisKeys, listKeys, redisUnavailable, uniqueClusterName } from '../support/cluster-services';
import { startSwiftS3, SwiftUnavailableError, type RunningSwiftS3 } from '../../harness/swift-s3.mjs';
import { Api, type Json } from '../support/api';
import { audioMedia, decodeFirstChannel, fetchAudioRendition, makeMedia, makeThreeLanguageSource, sineInput, toneFrequency } from '../support/audio-tracks';
import { httpGet } from '../support/hls';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { MediaServer } from '../../harness/media-server';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// Audio tracks with S3 storage, on two Keyframe nodes sharing one database and one bucket (a real
// Swift + s3api): an audio file added through node A is in the bucket before it is ready, so node B
// plays it (and the source's other audio streams) whichever node's worker prepared it; deleting the
// track through node B removes its file and its rendition from the bucket, including what node A
// was still uploading of its own encode of the track. That last part needs the nodes to hear of
// each other's changes, which they do through Redis (as every multi-node deployment must run): with
// a Redis at 127.0.0.1:6379 the nodes share one; without it, the other node's late uploads are
// the documented limit (docs/scaling-out.md) and not checked.

const BUCKET = 'keyframe-e2e-audio-tracks';
let swift: RunningSwiftS3 | null = null;
let unavailable = '';
let shared = '';
let media: MediaServer | undefined;
let nodeA: KeyframeServer | undefined;
let nodeB: KeyframeServer | undefined;
let apiA: Api;
let apiB: Api;
let redisKeyPrefix: string | null = null;

const bucketKeys = (prefix: string): Promise<string[]> => listKeys(swift!, BUCKET, prefix);

test.skip(isCluster(), 'starts its own two single-process nodes on SQLite and a Swift of its own (run by the default suite)');

test.beforeAll(async () => {
  test.setTimeout(240_000);
  try {
    swift = await startSwiftS3({ bucket: BUCKET });
  } catch (error) {
    if (!(error instanceof SwiftUnavailableError)) throw error;
    unavailable = error.message;
    return;
  }
  shared = await mkdtemp(path.join(os.tmpdir(), 'keyframe-e2e-s3-audio-'));
  await makeThreeLanguageSource(path.join(shared, 'three-languages.mkv'), 8);
  await makeMedia(path.join(shared, 'dub.mp3'), [...sineInput(1200, 5), '-c:a', 'libmp3lame']);
  media = await MediaServer.start({ roots: [shared] });
  if ((await redisUnavailable()) === null) redisKeyPrefix = uniqueClusterName();
  const env = {
    ...(redisKeyPrefix ? { REDIS_URL: CLUSTER_REDIS_URL, REDIS_KEY_PREFIX: redisKeyPrefix } : {}),
    DATABASE_URL: `file:${path.join(shared, 'keyframe.db')}`,
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: swift.endpoint,
    S3_REGION: swift.region,
    S3_ACCESS_KEY_ID: swift.accessKeyId,
    S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
  };
  nodeA = await startKeyframe({ label: 'audio-node-a', env });
  nodeB = await startKeyframe({ label: 'audio-node-b', env });
  const token = await nodeA.createToken();
  apiA = new Api(nodeA.baseUrl, token);
  apiB = new Api(nodeB.baseUrl, token);
});

test.afterAll(async () => {
  await disposeKeyframe(nodeA, nodeB);
  await swift?.stop();
  if (redisKeyPrefix) await deleteRedisKeys(redisKeyPrefix);
  await media?.close();
  if (shared) await rm(shared, { recursive: true, force: true });
});

test('an audio track added on one node plays from another; deleting it there empties its prefixes in the bucket', async () => {
  test.skip(swift === null, `Swift is not available: ${unavailable}`);
  test.setTimeout(240_000);
  const { assetId, playbackId } = await createPlayableAsset(apiA, media!.fileUrl('three-languages.mkv'));
  const created = await apiA.post(`/video/v1/assets/${assetId}/tracks`, { url: media!.fileUrl('dub.mp3'), type: 'audio', language_code: 'nl' });
  expect(created.status, created.text).toBe(201);
  const trackId: string = created.json.data.id;
  await expect
    .poll(async () => ((await apiA.waitForStatus(assetId)).tracks as Json[]).find((track) => track.id === trackId)?.status, { timeout: 120_000, intervals: [1_100] })
    .toBe('ready');
  // Shared before it was ready, so every node can encode it.
  expect(await bucketKeys(`assets/${assetId}/tracks/${trackId}/`)).toEqual([`assets/${assetId}/tracks/${trackId}/source`]);

  const playlist = await loadMultivariant(multivariantUrl(nodeB!, playbackId));
  const audio = audioMedia(playlist.media);
  expect(audio.map((entry) => entry.attributes.NAME), playlist.text).toEqual(['Default', 'Español', 'Français 5.1', 'Dutch']);
  const dub = await fetchAudioRendition(audio[3]!.url!, shared);
  expect(dub.decodeErrors).toBe('');
  expect(Math.abs(toneFrequency(await decodeFirstChannel(dub.joined)) - 1200)).toBeLessThan(25);
  const spanish = await fetchAudioRendition(audio[1]!.url!, shared);
  expect(spanish.decodeErrors).toBe('');
  expect(Math.abs(toneFrequency(await decodeFirstChannel(spanish.joined)) - 1000)).toBeLessThan(20);
  const rendition = `assets/${assetId}/hls/audio-${trackId}/`;
  await expect.poll(() => bucketKeys(`${rendition}complete.json`), { timeout: 60_000 }).toEqual([`${rendition}complete.json`]);
  // Its playlist, complete now, is rendered once and kept in memory: the deletion must still 404 it.
  await expect.poll(async () => (await httpGet(nodeB!.url(`/${playbackId}/audio-${trackId}.m3u8`))).status, { timeout: 30_000 }).toBe(200);
  await httpGet(nodeB!.url(`/${playbackId}/audio-${trackId}.m3u8`));

  expect((await apiB.delete(`/video/v1/assets/${assetId}/tracks/${trackId}`)).status).toBe(204);
  expect(await bucketKeys(`assets/${assetId}/tracks/${trackId}/`)).toEqual([]);
  // Node A may have been encoding the track too (as idle work once it was ready): what it was
  // uploading when it heard of the deletion is removed by node A once those uploads settle.
  if (redisKeyPrefix) await expect.poll(() => bucketKeys(rendition), { timeout: 15_000 }).toEqual([]);
  expect((await httpGet(nodeB!.url(`/${playbackId}/audio-${trackId}.m3u8`))).status).toBe(404);
});
