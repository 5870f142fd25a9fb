import type Mux from '@mux/mux-node';
import { firstVariantUrl, livePlayerState, startLiveKeyframe, startLivePlayer, waitForPlaylist, type LiveServer } from '../support/live';
import { publishTestPattern } from '../support/live-publisher';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';

// Each latency mode plays in hls.js (default configuration) close to the live edge: the frame on
// screen, dated by EXT-X-PROGRAM-DATE-TIME (checked against the publisher's clock in
// broadcast.spec.ts), is this far behind the wall clock. The bounds here leave room for a busy CI
// machine; `npm run bench -- --only live` measures the medians against the targets.

test.describe.configure({ mode: 'serial' });

let live: LiveServer;
let mux: Mux;

test.beforeAll(async () => {
  live = await startLiveKeyframe('live-latency');
  mux = muxClient(live.server, await live.server.createToken());
});

test.afterAll(async () => {
  await disposeKeyframe(live?.server);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const BOUNDS = { standard: 15, reduced: 9, low: 5 } as const;

for (const mode of ['standard', 'reduced', 'low'] as const) {
  test(`${mode} latency: hls.js plays live within ${BOUNDS[mode]} s of the wall clock`, async ({ page }) => {
    const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], latency_mode: mode, reconnect_window: 0 });
    const liveUrl = live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`);
    const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key), keyframeSeconds: 1 });
    try {
      const multivariant = await waitForPlaylist(liveUrl, undefined, 20_000);
      const media = await waitForPlaylist(firstVariantUrl(liveUrl, multivariant));
      if (mode === 'low') {
        expect(media).toMatch(/#EXT-X-PART-INF:PART-TARGET=/);
        expect(media).toMatch(/#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=/);
        expect(media).toMatch(/#EXT-X-PART:DURATION=[\d.]+,URI="[^"]+"(,INDEPENDENT=YES)?/);
        expect(media).toMatch(/#EXT-X-PRELOAD-HINT:TYPE=PART,URI="/);
      } else {
        expect(media).not.toContain('#EXT-X-PART');
      }

      await startLivePlayer(page, liveUrl);
      await expect.poll(async () => (await livePlayerState(page)).currentTime, { timeout: 20_000 }).toBeGreaterThan(2);
      await sleep(12_000);
      const state = await livePlayerState(page);
      expect(state.fatal, state.errors.join(', ')).toBeNull();
      expect(state.playingDateMs, 'hls.js reads the program date times').not.toBeNull();
      const latencySeconds = (Date.now() - state.playingDateMs!) / 1000;
      test.info().annotations.push({ type: 'latency', description: `${mode}: ${latencySeconds.toFixed(2)} s, stalls ${state.stalls}` });
      expect(latencySeconds).toBeGreaterThan(0);
      expect(latencySeconds).toBeLessThan(BOUNDS[mode]);
      expect(state.lowLatencyParts, 'hls.js loads parts only in low-latency mode').toBe(mode === 'low');
    } finally {
      await publisher.stop();
    }
  });
}

test('low latency: a blocking playlist reload waits for the part asked for; one far beyond the edge is refused', async () => {
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], latency_mode: 'low', reconnect_window: 0 });
  const liveUrl = live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`);
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key), keyframeSeconds: 1 });
  try {
    const mediaUrl = firstVariantUrl(liveUrl, await waitForPlaylist(liveUrl, undefined, 20_000));
    const media = await waitForPlaylist(mediaUrl);
    const hint = /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="[^"]*\/(\d+)\.(\d+)\.m4s"/.exec(media);
    expect(hint).not.toBeNull();
    const [msn, part] = [Number(hint![1]), Number(hint![2])];
    const asked = Date.now();
    const blocked = await fetch(`${mediaUrl}?_HLS_msn=${msn}&_HLS_part=${part}`);
    const waitedMs = Date.now() - asked;
    expect(blocked.status).toBe(200);
    const text = await blocked.text();
    expect(text, 'the answer lists the part asked for').toContain(`/${msn}.${part}.m4s"`);
    expect(waitedMs, 'it waited for the part (up to about one part duration)').toBeLessThan(3_000);
    const hinted = await fetch(new URL(/#EXT-X-PRELOAD-HINT:TYPE=PART,URI="([^"]+)"/.exec(text)![1]!, mediaUrl));
    expect(hinted.status, 'the hinted next part is answered once it exists').toBe(200);
    expect((await hinted.arrayBuffer()).byteLength).toBeGreaterThan(0);
    expect((await fetch(`${mediaUrl}?_HLS_msn=${msn + 50}`)).status).toBe(400);
    expect((await fetch(`${mediaUrl}?_HLS_part=1`)).status).toBe(400);
  } finally {
    await publisher.stop();
  }
});
