import type Mux from '@mux/mux-node';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { WebhookReceiver } from '../../harness/webhook-receiver';
import { Api } from '../support/api';
import { firstVariantUrl, livePlayerState, startLiveKeyframe, startLivePlayer, waitForPlaylist, type LiveServer } from '../support/live';
import { publishTestPattern } from '../support/live-publisher';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';

// Reconnect slates: while a publisher is away inside the reconnect window, the live playlist goes
// on with the slate image (after a discontinuity) instead of running dry, hls.js plays on through
// the gap, and the recording lists the gap as a slate span. A slate URL that is
// not an image gives video.live_stream.warning and the default card.

test.describe.configure({ mode: 'serial' });

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let live: LiveServer;
let mux: Mux;
let api: Api;
let receiver: WebhookReceiver;
let images: http.Server;
let imagesUrl: string;
let workDir: string;

test.beforeAll(async ({}, testInfo) => {
  workDir = testInfo.outputPath('slates');
  await mkdir(workDir, { recursive: true });
  // A green card, and a text file posing as one.
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x20c040:s=640x360', '-frames:v', '1', path.join(workDir, 'green.png')]);
  const files = new Map([
    ['/green.png', { type: 'image/png', file: path.join(workDir, 'green.png') }],
    ['/not-an-image.png', { type: 'image/png', body: Buffer.from('this is not a picture\n'.repeat(50)) }],
  ]);
  images = http.createServer((request, response) => {
    const entry = files.get(request.url ?? '');
    if (!entry) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': entry.type });
    if ('body' in entry) return void response.end(entry.body);
    void import('node:fs').then(({ createReadStream }) => createReadStream(entry.file).pipe(response));
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  live = await startLiveKeyframe('live-slates');
  const token = await live.server.createToken();
  mux = muxClient(live.server, token);
  api = new Api(live.server.baseUrl, token);
  receiver = await (await WebhookReceiver.start()).subscribeTo(live.server);
});

test.afterAll(async () => {
  await receiver?.close();
  await new Promise((resolve) => images?.close(resolve));
  await disposeKeyframe(live?.server);
});

type PlaylistSegment = { uri: string; mapUri: string; afterDiscontinuity: number };

// Each segment with its init segment and how many discontinuities came before it.
const segmentsOf = (playlist: string, playlistUrl: string): PlaylistSegment[] => {
  const segments: PlaylistSegment[] = [];
  let mapUri = '';
  let discontinuities = 0;
  for (const line of playlist.split('\n')) {
    const map = /^#EXT-X-MAP:URI="([^"]+)"/.exec(line);
    if (map) mapUri = new URL(map[1]!, playlistUrl).toString();
    else if (line === '#EXT-X-DISCONTINUITY') discontinuities += 1;
    else if (line && !line.startsWith('#')) segments.push({ uri: new URL(line, playlistUrl).toString(), mapUri, afterDiscontinuity: discontinuities });
  }
  return segments;
};

/** The picture's colour at (x, y) of the segment's first frame, as 8-bit RGB. */
const colourAt = async (segment: PlaylistSegment, label: string, at: (width: number, height: number) => [number, number]): Promise<number[]> => {
  const [init, media] = await Promise.all([segment.mapUri, segment.uri].map(async (url) => Buffer.from(await (await fetch(url)).arrayBuffer())));
  const file = path.join(workDir, `${label}.mp4`);
  await writeFile(file, Buffer.concat([init!, media!]));
  const { stdout: size } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file]);
  const [width, height] = size.trim().split(',').map(Number) as [number, number];
  const [x, y] = at(width, height);
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-frames:v', '1', '-vf', `format=rgb24,crop=1:1:${x}:${y}`, '-f', 'rawvideo', 'pipe:1'], { encoding: 'buffer' });
  return [...stdout];
};

const centre = (width: number, height: number): [number, number] => [Math.floor(width / 2), Math.floor(height / 2)];

test('a 10 s publisher gap inside the reconnect window plays as the slate: hls.js plays on through it, the slate decodes to the image, the recording lists content, slate, content', async ({ page }) => {
  const stream = await mux.video.liveStreams.create({
    playback_policies: ['public'],
    new_asset_settings: { playback_policies: ['public'] },
    latency_mode: 'reduced',
    reconnect_window: 30,
    reconnect_slate_url: `${imagesUrl}/green.png`,
  });
  const liveUrl = live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`);
  const first = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  const mediaUrl = firstVariantUrl(liveUrl, await waitForPlaylist(liveUrl, undefined, 20_000));
  await startLivePlayer(page, liveUrl);
  await expect.poll(async () => (await livePlayerState(page)).currentTime, { timeout: 20_000 }).toBeGreaterThan(2);
  await sleep(Math.max(0, 6_000 - (Date.now() - first.startedAtMs)));

  const beforeGap = { at: Date.now(), position: (await livePlayerState(page)).currentTime };
  await first.kill();
  const gapStarted = Date.now();
  await receiver.waitForEvent('video.live_stream.disconnected', stream.id);
  // The slate comes in after a discontinuity, and keeps coming while the publisher is away.
  const slating = await waitForPlaylist(mediaUrl, (text) => segmentsOf(text, mediaUrl).filter((segment) => segment.afterDiscontinuity === 1).length >= 3, 15_000);
  const slate = segmentsOf(slating, mediaUrl).filter((segment) => segment.afterDiscontinuity === 1);
  const [red, green, blue] = await colourAt(slate.at(-1)!, 'slate', centre);
  expect(green, `the slate shows the image (rgb ${red},${green},${blue})`).toBeGreaterThan(150);
  expect(red).toBeLessThan(90);
  expect((await mux.video.liveStreams.retrieve(stream.id)).status, 'the stream stays active through the gap').toBe('active');

  await sleep(Math.max(0, 10_000 - (Date.now() - gapStarted)));
  const second = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  const resumed = await waitForPlaylist(mediaUrl, (text) => segmentsOf(text, mediaUrl).some((segment) => segment.afterDiscontinuity === 2), 20_000);
  const [back] = segmentsOf(resumed, mediaUrl).filter((segment) => segment.afterDiscontinuity === 2);
  const [backRed] = await colourAt(back!, 'resumed', centre);
  expect(backRed, "the publisher's picture is back (testsrc is yellow where the slate is green)").toBeGreaterThan(150);
  // Playing well past the gap: the player crossed the slate and both discontinuities without
  // running dry (without a slate it stands still for about 6 s; the live bench counts the stalls).
  await expect.poll(async () => (await livePlayerState(page)).currentTime - beforeGap.position, { timeout: 30_000 }).toBeGreaterThan(16);
  const afterGap = { at: Date.now(), position: (await livePlayerState(page)).currentTime };
  const state = await livePlayerState(page);
  expect(state.fatal, state.errors.join(', ')).toBeNull();
  const played = afterGap.position - beforeGap.position;
  const elapsed = (afterGap.at - beforeGap.at) / 1000;
  expect(played, `played ${played.toFixed(2)} s in ${elapsed.toFixed(2)} s across the gap (stalls: ${state.stalls}; errors: ${state.errors.join(', ')})`).toBeGreaterThan(elapsed - 1.5);
  await second.stop();
  await mux.video.liveStreams.complete(stream.id);

  const assetId = (await mux.video.liveStreams.retrieve(stream.id)).recent_asset_ids!.at(-1)!;
  const ready = await api.waitForStatus(assetId, ['ready', 'errored'], 120_000);
  expect(ready.status, JSON.stringify(ready.errors)).toBe('ready');
  const times = ready.recording_times as Array<{ type: string; duration: number }>;
  expect(times.map((time) => time.type)).toEqual(['content', 'slate', 'content']);
  // The gap, plus the slate's first segment and fragment (made at once) and the time the returning
  // publisher takes to be packaged.
  expect(times[1]!.duration, 'the slate span lasts about as long as the gap').toBeGreaterThan(8);
  expect(times[1]!.duration).toBeLessThan(16);
});

test('a slate URL that is not an image: video.live_stream.warning when the broadcast starts, and the default card during the gap', async () => {
  const stream = await mux.video.liveStreams.create({
    playback_policies: ['public'],
    latency_mode: 'reduced',
    reconnect_window: 20,
    reconnect_slate_url: `${imagesUrl}/not-an-image.png`,
  });
  const liveUrl = live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`);
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  const mediaUrl = firstVariantUrl(liveUrl, await waitForPlaylist(liveUrl, undefined, 20_000));
  const warning = await receiver.waitForEvent('video.live_stream.warning', stream.id, { timeoutMs: 20_000 });
  expect(warning.event.data).toMatchObject({
    id: stream.id,
    warning: { type: 'custom_slate_unavailable', message: 'the reconnect slate is not a PNG or JPEG image' },
  });
  await sleep(Math.max(0, 3_000 - (Date.now() - publisher.startedAtMs)));
  await publisher.kill();
  const slating = await waitForPlaylist(mediaUrl, (text) => segmentsOf(text, mediaUrl).some((segment) => segment.afterDiscontinuity === 1), 15_000);
  const [slate] = segmentsOf(slating, mediaUrl).filter((segment) => segment.afterDiscontinuity === 1);
  // The default card's dark blue-grey (#111827) in a corner.
  const [red, green, blue] = await colourAt(slate!, 'default-card', () => [8, 8]);
  expect(Math.max(Math.abs(red! - 0x11), Math.abs(green! - 0x18), Math.abs(blue! - 0x27)), `rgb ${red},${green},${blue}`).toBeLessThan(16);
  await mux.video.liveStreams.complete(stream.id);
  await receiver.waitForEvent('video.live_stream.idle', stream.id, { timeoutMs: 20_000 });
});
