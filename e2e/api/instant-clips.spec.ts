import path from 'node:path';
import type Mux from '@mux/mux-node';
import { Api } from '../support/api';
import { makeSource, makeTempDir, removeDir } from '../support/clip-media';
import { httpGet, parseMediaPlaylist, parseMultivariant, type MediaPlaylist } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { MediaServer } from '../../harness/media-server';
import { decodeCheck } from '../support/media-probe';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// Instant clips: asset_start_time / asset_end_time on the playback URL (public) or in the token's
// claims (signed, where query values are ignored) limit every media playlist to the segments that
// overlap the range. Untrimmed and trimmed requests of the same playlist never get each other's
// answer from a cache.

let server: KeyframeServer;
let api: Api;
let mux: Mux;
let media: MediaServer;
let dir: string;
let publicId: string;
let signedId: string;
let key: { id: string; secret: string };

test.beforeAll(async () => {
  test.setTimeout(90_000);
  dir = await makeTempDir('instant-clips');
  await makeSource(path.join(dir, 'source.mp4'), { seconds: 12 });
  media = await MediaServer.start({ roots: [dir] });
  server = await startKeyframe({ label: 'instant-clips' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  const made = await mux.system.signingKeys.create();
  key = { id: made.id, secret: made.private_key! };
  const asset = await api.createAsset({ inputs: [{ url: media.fileUrl('source.mp4') }], playback_policies: ['public', 'signed'] });
  expect((await api.waitForStatus(asset.id)).status).toBe('ready');
  publicId = asset.playback_ids.find((entry: { policy: string }) => entry.policy === 'public').id;
  signedId = asset.playback_ids.find((entry: { policy: string }) => entry.policy === 'signed').id;
});

test.afterAll(async () => {
  await disposeKeyframe(server);
  await media?.close();
  if (dir) await removeDir(dir);
});

/** Each media playlist reached from the multivariant playlist at `url`, with the URI it was listed under. */
const mediaPlaylists = async (url: string): Promise<Array<MediaPlaylist & { uri: string }>> => {
  const multivariant = await httpGet(url);
  expect(multivariant.status, multivariant.text).toBe(200);
  const parsed = parseMultivariant(multivariant.text, url);
  const uris = [...parsed.variants.map((variant) => ({ uri: variant.uri, url: variant.url })), ...parsed.media.filter((entry) => entry.url)];
  return Promise.all(
    uris.map(async (entry) => {
      const response = await httpGet(entry.url!);
      expect(response.status, response.text).toBe(200);
      const playlist = parseMediaPlaylist(response.text, entry.url!);
      return { ...playlist, uri: entry.uri! };
    }),
  );
};

const withStarts = (full: MediaPlaylist) => {
  let at = 0;
  return full.segments.map((segment) => {
    const start = at;
    at += segment.duration;
    return { uri: segment.uri, start, end: at };
  });
};

/** The segments of `full` overlapping [start, end): what a trimmed playlist must list, in order. */
const expectedUris = (full: MediaPlaylist, start: number, end: number) =>
  withStarts(full)
    .filter((segment) => segment.end > start && segment.start < end)
    .map((segment) => segment.uri);

const expectTrimmed = (trimmed: MediaPlaylist[], full: MediaPlaylist[], start: number, end: number) => {
  expect(trimmed.length).toBe(full.length);
  trimmed.forEach((playlist, index) => {
    const whole = full[index]!;
    const expected = expectedUris(whole, start, end);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length, 'the range must leave something out for the test to mean anything').toBeLessThan(whole.segments.length);
    expect(playlist.segments.map((segment) => segment.uri)).toEqual(expected);
    expect(playlist.map?.uri.split('?')[0]).toBe(whole.map?.uri.split('?')[0]);
    expect(playlist.endList).toBe(true);
  });
};

test('public: the query range trims every media playlist to the overlapping segments; caches keep them apart', async () => {
  const plain = server.url(`/${publicId}.m3u8`);
  const full = await mediaPlaylists(plain);
  // Asked twice: the second answer comes from the in-memory fast path.
  expect((await mediaPlaylists(plain)).map((playlist) => playlist.text)).toEqual(full.map((playlist) => playlist.text));

  const clipped = `${plain}?asset_start_time=5&asset_end_time=9`;
  const multivariant = await httpGet(clipped);
  for (const variant of parseMultivariant(multivariant.text, clipped).variants) {
    expect(variant.uri).toContain('asset_start_time=5&asset_end_time=9');
  }
  const trimmed = await mediaPlaylists(clipped);
  expectTrimmed(trimmed, full, 5, 9);
  expect((await mediaPlaylists(clipped)).map((playlist) => playlist.text)).toEqual(trimmed.map((playlist) => playlist.text));
  // The trimmed playlist plays: its segments (encoded just in time) decode after its init segment.
  const decoded = await decodeCheck(clipped);
  expect(decoded.code, decoded.stderr).toBe(0);

  // The untrimmed playlists again, after the trimmed ones were rendered and cached.
  expect((await mediaPlaylists(plain)).map((playlist) => playlist.text)).toEqual(full.map((playlist) => playlist.text));
  // A media playlist asked for directly with only a start.
  const fullVideo = full[0]!;
  const direct = await httpGet(new URL(`${fullVideo.uri.split('?')[0]}?asset_start_time=8.5`, `${plain}`).toString());
  expect(parseMediaPlaylist(direct.text, plain).segments.map((segment) => segment.uri)).toEqual(expectedUris(fullVideo, 8.5, Infinity));

  expect((await httpGet(`${plain}?asset_start_time=abc`)).status).toBe(400);
  expect((await httpGet(`${plain}?asset_start_time=6&asset_end_time=5`)).status).toBe(400);
});

test('signed: the range comes from the token claims; query values are ignored', async () => {
  const sign = (params: Record<string, string> = {}) => mux.jwt.signPlaybackId(signedId, { keyId: key.id, keySecret: key.secret, type: 'video', params });
  const plainSigned = server.url(`/${signedId}.m3u8`);
  const full = await mediaPlaylists(`${plainSigned}?token=${await sign()}`);
  const clippedToken = await sign({ asset_start_time: '2.5', asset_end_time: '7' });
  // The query asks for another range: it is not used.
  const trimmed = await mediaPlaylists(server.url(`/${signedId}.m3u8?token=${clippedToken}&asset_start_time=9&asset_end_time=11`));
  expectTrimmed(
    trimmed.map((playlist) => ({ ...playlist, segments: playlist.segments.map((segment) => ({ ...segment, uri: segment.uri.split('?')[0]! })) })),
    full.map((playlist) => ({ ...playlist, segments: playlist.segments.map((segment) => ({ ...segment, uri: segment.uri.split('?')[0]! })) })),
    2.5,
    7,
  );
  // The range travels in the proof of the rendition URLs: a range added to them changes nothing.
  for (const playlist of trimmed) {
    const widened = await httpGet(server.url(`/${playlist.uri}&asset_start_time=0&asset_end_time=12`));
    expect(widened.status, widened.text).toBe(200);
    expect(parseMediaPlaylist(widened.text, plainSigned).segments.map((segment) => segment.uri)).toEqual(playlist.segments.map((segment) => segment.uri));
  }
  // Without the claims, a query range on a signed ID changes nothing.
  const ignored = await mediaPlaylists(server.url(`/${signedId}.m3u8?token=${await sign()}&asset_start_time=9`));
  expect(ignored.map((playlist) => playlist.segments.length)).toEqual(full.map((playlist) => playlist.segments.length));
});
