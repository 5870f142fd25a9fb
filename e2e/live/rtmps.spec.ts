import type Mux from '@mux/mux-node';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { connect } from 'node:tls';
import { expectFirstLiveSegmentDecodes, startLiveKeyframeWithRtmps, waitForLiveStreamStatus, waitForPlaylist } from '../support/live';
import { dataDirsOf } from '../support/keyframe-server';
import { expectPublisherRefused, publishTestPattern } from '../support/live-publisher';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';

// RTMPS: RTMP inside TLS on a port of its own, with a self-signed certificate made on first start
// when the operator configures none. ffmpeg publishes over it as OBS would (ffmpeg does not check
// the certificate; OBS does, so the operator trusts this one or configures a real one).

test.describe.configure({ mode: 'serial' });

let live: Awaited<ReturnType<typeof startLiveKeyframeWithRtmps>>;
let mux: Mux;

test.beforeAll(async () => {
  live = await startLiveKeyframeWithRtmps('live-rtmps');
  mux = muxClient(live.server, await live.server.createToken());
});

test.afterAll(async () => {
  await disposeKeyframe(live?.server);
});

const createStream = () => mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] }, reconnect_window: 0 });

const waitForStatus = (id: string, status: string) => waitForLiveStreamStatus(mux, id, status);

const presentedCertificate = (port: number): Promise<X509Certificate> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const certificate = socket.getPeerX509Certificate();
      socket.end();
      if (certificate) resolve(certificate);
      else reject(new Error('no certificate presented'));
    });
    socket.on('error', reject);
  });

test('the RTMPS port presents the certificate generated in DATA_DIR, naming the ingest host', async () => {
  const presented = await presentedCertificate(live.rtmpsPort);
  const stored = readFileSync(path.join(dataDirsOf(live.server)[0]!, 'rtmps', 'identity.pem'), 'utf8');
  expect(presented.fingerprint256).toBe(new X509Certificate(stored).fingerprint256);
  expect(presented.subjectAltName).toContain('IP Address:127.0.0.1');
});

test('a publisher over RTMPS goes live like one over RTMP: active with active_ingest_protocol rtmps, live HLS that decodes, then idle with a recording', async ({}, testInfo) => {
  const stream = await createStream();
  const publisher = publishTestPattern({ ingestUrl: live.rtmpsUrl(stream.stream_key) });
  try {
    await expectFirstLiveSegmentDecodes(live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`), testInfo.outputDir, 'rtmps-live');

    expect(await waitForStatus(stream.id, 'active')).toMatchObject({ status: 'active', active_ingest_protocol: 'rtmps' });
  } finally {
    await publisher.stop();
  }
  const ended = await waitForStatus(stream.id, 'idle');
  expect(ended.status).toBe('idle');
  expect(ended.active_ingest_protocol, 'no protocol once nobody is connected').toBeUndefined();
  expect(ended.recent_asset_ids?.length, 'the broadcast was recorded').toBe(1);
});

test('plain RTMP to the RTMPS port, and an unknown key over RTMPS, are refused; plain RTMP still works beside it', async () => {
  const stream = await createStream();
  await expectPublisherRefused(publishTestPattern({ ingestUrl: `rtmp://127.0.0.1:${live.rtmpsPort}/app/${stream.stream_key}`, seconds: 10 }), 'plain RTMP on the TLS port');
  await expectPublisherRefused(publishTestPattern({ ingestUrl: live.rtmpsUrl('00000000-0000-0000-0000-000000000000'), seconds: 10 }), 'unknown key over RTMPS');
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  try {
    await waitForPlaylist(live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`), undefined, 30_000);
    expect(await waitForStatus(stream.id, 'active')).toMatchObject({ status: 'active', active_ingest_protocol: 'rtmp' });
  } finally {
    await publisher.stop();
  }
});

