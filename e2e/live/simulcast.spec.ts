import type Mux from '@mux/mux-node';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { getFreePort } from '../support/keyframe-server';
import { startLiveKeyframe, waitForPlaylist, type LiveServer } from '../support/live';
import { publishTestPattern } from '../support/live-publisher';
import { probeFrames } from '../support/media-probe';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';

// Simulcast targets: the broadcast, as published, restreamed to other RTMP servers. The receiver
// here is ffmpeg listening for one RTMP publish (what YouTube or Twitch ingest is to a real
// stream) and writing what arrives to a file; a second target points at a port nobody listens on.

test.describe.configure({ mode: 'serial' });

let live: LiveServer;
let mux: Mux;

test.beforeAll(async () => {
  live = await startLiveKeyframe('live-simulcast');
  mux = muxClient(live.server, await live.server.createToken());
});

test.afterAll(async () => {
  await disposeKeyframe(live?.server);
});

type Receiver = { url: string; file: string; process: ChildProcess; exited: Promise<number | null>; stop(): Promise<void> };

const startReceiver = async (dir: string, name: string, port?: number): Promise<Receiver> => {
  const listenPort = port ?? (await getFreePort());
  const file = path.join(dir, `${name}.flv`);
  const child = spawn('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-listen', '1', '-i', `rtmp://127.0.0.1:${listenPort}/live/receiver-key`, '-c', 'copy', '-f', 'flv', file], { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    url: `rtmp://127.0.0.1:${listenPort}/live`,
    file,
    process: child,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
};

const bytesIn = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

const waitForTargetStatus = async (streamId: string, targetId: string, status: string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  let seen = await mux.video.liveStreams.retrieveSimulcastTarget(streamId, targetId);
  while (seen.status !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    seen = await mux.video.liveStreams.retrieveSimulcastTarget(streamId, targetId);
  }
  return seen;
};

test('a broadcast reaches a listening target within seconds and decodes there; a target nobody listens on errors without disturbing it; both idle after', async ({}, testInfo) => {
  mkdirSync(testInfo.outputDir, { recursive: true });
  const receiver = await startReceiver(testInfo.outputDir, 'youtube-like');
  const deadPort = await getFreePort();
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], reconnect_window: 0 });
  const good = await mux.video.liveStreams.createSimulcastTarget(stream.id, { url: receiver.url, stream_key: 'receiver-key' });
  const dead = await mux.video.liveStreams.createSimulcastTarget(stream.id, { url: `rtmp://127.0.0.1:${deadPort}/app`, stream_key: 'nobody' });
  expect([good.status, dead.status]).toEqual(['idle', 'idle']);

  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  try {
    const started = Date.now();
    expect((await waitForTargetStatus(stream.id, good.id, 'broadcasting')).status).toBe('broadcasting');
    await expect.poll(() => bytesIn(receiver.file), { timeout: 10_000 }).toBeGreaterThan(50_000);
    testInfo.annotations.push({ type: 'publisher start → target broadcasting', description: `${Date.now() - started} ms` });
    expect((await waitForTargetStatus(stream.id, dead.id, 'errored')).status).toBe('errored');
    // The broadcast itself goes on: live HLS is served while one target fails.
    await waitForPlaylist(live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`), undefined, 30_000);
    expect((await mux.video.liveStreams.retrieve(stream.id)).status).toBe('active');
    expect((await mux.video.liveStreams.retrieveSimulcastTarget(stream.id, good.id)).status, 'the other target is undisturbed').toBe('broadcasting');
  } finally {
    await publisher.stop();
  }
  // The target ended its publish when the broadcast did: the receiver's file is complete and decodes.
  await Promise.race([receiver.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  await receiver.stop();
  const { frames, stderr } = await probeFrames(receiver.file);
  expect(stderr.trim(), 'what the target received decodes').toBe('');
  expect(frames.filter((frame) => frame.mediaType === 'video').length, 'video frames arrived at the target').toBeGreaterThan(30);
  expect(frames.filter((frame) => frame.mediaType === 'audio').length, 'audio arrived too').toBeGreaterThan(0);
  expect((await waitForTargetStatus(stream.id, good.id, 'idle')).status).toBe('idle');
  expect((await waitForTargetStatus(stream.id, dead.id, 'idle')).status).toBe('idle');
});

test('a target that drops the stream is retried and broadcasts again once it is back', async ({}, testInfo) => {
  mkdirSync(testInfo.outputDir, { recursive: true });
  const port = await getFreePort();
  const first = await startReceiver(testInfo.outputDir, 'first', port);
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], reconnect_window: 0 });
  const target = await mux.video.liveStreams.createSimulcastTarget(stream.id, { url: first.url, stream_key: 'receiver-key' });
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  try {
    expect((await waitForTargetStatus(stream.id, target.id, 'broadcasting')).status).toBe('broadcasting');
    first.process.kill('SIGKILL');
    expect((await waitForTargetStatus(stream.id, target.id, 'errored')).status).toBe('errored');
    const second = await startReceiver(testInfo.outputDir, 'second', port);
    try {
      expect((await waitForTargetStatus(stream.id, target.id, 'broadcasting')).status).toBe('broadcasting');
      await expect.poll(() => bytesIn(second.file), { timeout: 10_000 }).toBeGreaterThan(50_000);
    } finally {
      await second.stop();
    }
    expect(publisher.process.exitCode, 'the publisher was never disturbed').toBeNull();
  } finally {
    await publisher.stop();
  }
});
