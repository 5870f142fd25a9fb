import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import NodeRtmpClient from 'node-media-server/src/node_rtmp_client.js';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRtmpServerSlot, startRtmpServer, type PublishDecision, type RtmpPublisher, type RtmpServer } from './rtmp-server';

// Real ffmpeg publishers and readers against a real server on an ephemeral port. One server at a
// time: node-media-server's session maps are process-global.

const logLines: string[] = [];
const log = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
const keysUsed = new Set<string>();
const children = new Set<ChildProcess>();
// One slot for the file, as a process has one: the servers of these tests run one at a time.
const slot = createRtmpServerSlot();
let server: RtmpServer | undefined;
let originalCwd = '';
let scratchCwd = '';

const newKey = (): string => {
  const key = `sk-${randomUUID()}`;
  keysUsed.add(key);
  return key;
};

type Exit = { code: number | null; signal: NodeJS.Signals | null; stderr: string };
type Running = { child: ChildProcess; exited: Promise<Exit>; stderr: () => string };

function run(command: string, args: string[]): Running {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.resume();
  const exited = new Promise<Exit>((resolve) =>
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stderr });
    }),
  );
  return { child, exited, stderr: () => stderr };
}

const H264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '30'];
const AAC = ['-c:a', 'aac'];

type EncoderOptions = { video?: string[]; audio?: string[]; logLevel?: string; seconds?: number };

function publish(url: string, options: EncoderOptions = {}): Running {
  return run('ffmpeg', [
    '-hide_banner', '-nostdin', '-loglevel', options.logLevel ?? 'error', '-re',
    '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30',
    '-f', 'lavfi', '-i', 'sine=frequency=440',
    ...(options.video ?? H264), ...(options.audio ?? AAC),
    ...(options.seconds ? ['-t', String(options.seconds)] : []),
    '-f', 'flv', url,
  ]);
}

type Recorder = { published: RtmpPublisher[]; authorized: { streamKey: string; remoteAddress: string }[] };

async function startServer(
  decide: (streamKey: string) => PublishDecision,
  extra: { port?: number; mediaInactivityTimeoutMs?: number; maxReaderBacklogBytes?: number } = {},
): Promise<{ server: RtmpServer; recorder: Recorder; url: (path: string) => string }> {
  const recorder: Recorder = { published: [], authorized: [] };
  server = await startRtmpServer({
    slot,
    port: extra.port ?? 0,
    log,
    mediaInactivityTimeoutMs: extra.mediaInactivityTimeoutMs,
    maxReaderBacklogBytes: extra.maxReaderBacklogBytes,
    authorize: async (streamKey, info) => {
      recorder.authorized.push({ streamKey, ...info });
      // A database lookup takes a moment; the publisher must hear nothing meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 50));
      return decide(streamKey);
    },
    onPublish: (publisher) => recorder.published.push(publisher),
  });
  const port = server.port;
  return { server, recorder, url: (path) => `rtmp://127.0.0.1:${port}${path}` };
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms))]);

/** Video tags wholly inside an FLV file's first bytes. */
function flvVideoTagsIn(flv: Buffer): number {
  let count = 0;
  for (let offset = 13; offset + 11 <= flv.length; ) {
    const end = offset + 11 + flv.readUIntBE(offset + 1, 3) + 4;
    if (end > flv.length) break;
    if (flv[offset] === 9) count += 1;
    offset = end;
  }
  return count;
}

const acceptOnly = (key: string) => (streamKey: string): PublishDecision =>
  streamKey === key ? { accept: true } : { accept: false, reason: 'unknown stream key' };

async function probeStreams(url: string): Promise<{ codec_name: string; width?: number; height?: number; nb_read_frames?: string }[]> {
  const probe = run('ffprobe', [
    '-v', 'error', '-count_frames', '-read_intervals', '%+2',
    '-show_entries', 'stream=codec_name,width,height,sample_rate,channels,nb_read_frames', '-of', 'json', url,
  ]);
  let stdout = '';
  probe.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exit = await within(probe.exited, 15_000, 'ffprobe');
  expect(exit.code, exit.stderr).toBe(0);
  return (JSON.parse(stdout) as { streams: { codec_name: string }[] }).streams;
}

function nonLoopbackIPv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
}

beforeAll(() => {
  // Nothing of NMS's may land on disk (it defaults to ./data, Keyframe's folder): run from an empty one.
  originalCwd = process.cwd();
  scratchCwd = mkdtempSync(join(tmpdir(), 'keyframe-rtmp-cwd-'));
  process.chdir(scratchCwd);
});

afterEach(async () => {
  for (const child of children) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  await server?.close();
  server = undefined;
});

afterAll(() => {
  process.chdir(originalCwd);
  const written = readdirSync(scratchCwd);
  rmSync(scratchCwd, { recursive: true, force: true });
  expect(written).toEqual([]);
  const joined = logLines.join('');
  for (const key of keysUsed) expect(joined).not.toContain(key);
  expect(logLines.length).toBeGreaterThan(0);
});

describe('startRtmpServer', () => {
  it('accepts a known key, reports H.264 + AAC media and serves the stream to a local reader', async () => {
    const key = newKey();
    const { server, recorder, url } = await startServer(acceptOnly(key));
    const encoder = publish(url(`/app/${key}?bitrate=ignored`));

    const publisher = await waitFor(() => recorder.published[0], 10_000, 'onPublish');
    expect(publisher.streamKey).toBe(key);
    expect(publisher.remoteAddress).toBe('127.0.0.1');
    expect(publisher.readUrl).toBe(`rtmp://127.0.0.1:${server.port}/app/${key}`);
    expect(Math.abs(publisher.connectedAt - Date.now())).toBeLessThan(5_000);
    expect(recorder.authorized).toEqual([{ streamKey: key, remoteAddress: '127.0.0.1' }]);
    expect(server.publisherFor(key)).toBe(publisher);

    const media = await within(publisher.media, 5_000, 'media');
    expect(media.video).toMatchObject({ codec: 'h264', width: 640, height: 360, frameRate: 30, codecString: expect.stringMatching(/^avc1\.[0-9a-f]{6}$/) });
    expect(media.audio).toMatchObject({ codec: 'aac', sampleRate: 44100, channels: 1, codecString: 'mp4a.40.2' });

    const streams = await probeStreams(publisher.readUrl);
    const video = streams.find((stream) => stream.codec_name === 'h264');
    const audio = streams.find((stream) => stream.codec_name === 'aac');
    expect(video).toMatchObject({ width: 640, height: 360 });
    expect(Number(video?.nb_read_frames)).toBeGreaterThanOrEqual(30);
    expect(Number(audio?.nb_read_frames)).toBeGreaterThan(20);
    expect(Date.now() - publisher.lastMediaAt()).toBeLessThan(1_000);

    publisher.close('live stream completed');
    await expect(within(publisher.ended, 2_000, 'ended')).resolves.toEqual({ reason: 'live stream completed' });
    const exit = await within(encoder.exited, 5_000, 'encoder exit');
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('live stream completed');
    expect(server.publisherFor(key)).toBeUndefined();
  }, 40_000);

  it('gives the first reader everything since the publish began, later readers the current GOP', async () => {
    const key = newKey();
    const { recorder, url } = await startServer(acceptOnly(key));
    publish(url(`/app/${key}`));
    const publisher = await waitFor(() => recorder.published[0], 10_000, 'onPublish');
    await within(publisher.media, 5_000, 'media');
    // Three 1 s GOPs go by before anyone reads: a plain GOP cache would start the reader at ~2 s.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const firstVideoTime = async () => {
      const probe = run('ffprobe', ['-v', 'error', '-select_streams', 'v', '-read_intervals', '%+#1', '-show_entries', 'packet=pts_time', '-of', 'csv=p=0', publisher.readUrl]);
      let stdout = '';
      probe.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      await within(probe.exited, 15_000, 'ffprobe');
      return Number(stdout.trim().split('\n')[0]);
    };
    expect(await firstVideoTime(), 'the first reader starts at the first frame').toBeLessThan(0.5);
    // The pre-roll goes at the next keyframe after the first reader joined.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await firstVideoTime(), 'a later reader starts at the last keyframe').toBeGreaterThan(2);
    publisher.close('done');
  }, 40_000);

  it("passes a publisher's burst on to a reader at once, however many messages it holds", async () => {
    // An encoder behind a jittery link, or the SRT relay (~13 messages every 165 ms), sends in
    // bursts. NMS batches writes to readers by tens under a cork; a burst used to leave the batch
    // corked until the next burst, so the packager got its input in lumps up to 1.5 s apart.
    const key = newKey();
    const { recorder, url } = await startServer(acceptOnly(key));
    const flv = join(scratchCwd, '..', `burst-${randomUUID()}.flv`);
    const made = await run('ffmpeg', ['-hide_banner', '-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '4', ...H264, ...AAC, '-f', 'flv', flv]).exited;
    expect(made.code, made.stderr).toBe(0);
    const bytes = readFileSync(flv);
    rmSync(flv);
    // The first half of the file, then a pause: a burst the server must pass on without waiting for more.
    const firstBurst = bytes.subarray(0, Math.floor(bytes.length / 2));
    const framesInFirstBurst = flvVideoTagsIn(firstBurst);

    const reader = new NodeRtmpClient(url(`/app/${key}`));
    const videoArrivals: number[] = [];
    reader.on('video', () => videoArrivals.push(Date.now()));
    reader.startPull();
    const relay = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-analyzeduration', '500000', '-f', 'flv', '-i', 'pipe:0', '-c', 'copy', '-f', 'flv', url(`/app/${key}`)], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.add(relay);
    // Killed below with its input possibly unread.
    relay.stdin.on('error', () => undefined);
    try {
      // Its input stays open: at its end ffmpeg would unpublish, and NMS flushes readers then.
      relay.stdin.write(firstBurst);
      const writtenAt = Date.now();
      await waitFor(() => recorder.published[0], 10_000, 'onPublish');
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const inTime = videoArrivals.filter((at) => at < writtenAt + 2_000).length;
      // ffmpeg keeps a frame or two of the burst for its own interleaving; the server keeps none.
      expect(inTime, `${inTime} of the burst's ${framesInFirstBurst} video frames reached the reader within 2 s`).toBeGreaterThanOrEqual(framesInFirstBurst - 5);
    } finally {
      reader.stop();
      relay.kill('SIGKILL');
      children.delete(relay);
    }
  }, 40_000);

  it('ends the publish when the encoder unpublishes at the end of its input', async () => {
    const key = newKey();
    const { server, recorder, url } = await startServer(acceptOnly(key));
    const encoder = publish(url(`/app/${key}`), { seconds: 2 });
    const publisher = await waitFor(() => recorder.published[0], 10_000, 'onPublish');
    await expect(within(publisher.ended, 8_000, 'ended')).resolves.toEqual({ reason: 'publisher unpublished' });
    expect((await within(encoder.exited, 5_000, 'encoder exit')).code).toBe(0);
    expect(server.publisherFor(key)).toBeUndefined();
  }, 20_000);

  it('settles media with the one track a single-track publish sends', async () => {
    const key = newKey();
    const { recorder, url } = await startServer(acceptOnly(key));
    publish(url(`/app/${key}`), { audio: ['-an'] });
    const publisher = await waitFor(() => recorder.published[0], 10_000, 'onPublish');
    const media = await within(publisher.media, 5_000, 'media');
    expect(media.video).toMatchObject({ codec: 'h264', width: 640, height: 360 });
    expect(media.audio).toBeUndefined();
  }, 20_000);

  it('refuses an unknown key with an error status and closes the socket, never saying publish started', async () => {
    const firstLogLine = logLines.length;
    const { recorder, url } = await startServer(() => ({ accept: false, reason: 'unknown stream key' }));
    const key = newKey();
    const started = Date.now();
    const exit = await within(publish(url(`/app/${key}`), { logLevel: 'info' }).exited, 5_000, 'refused encoder exit');
    expect(exit.code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(exit.stderr).toContain('Server error: unknown stream key');
    // ffmpeg describes its output only once the output opened, i.e. after Publish.Start.
    expect(exit.stderr).toContain('Input #0');
    expect(exit.stderr).not.toContain('Output #0');

    // The same refusal seen on the wire by another client implementation.
    const statuses: { level?: string; code?: string }[] = [];
    const client = new NodeRtmpClient(url(`/app/${newKey()}`));
    const closed = new Promise<void>((resolve) => client.on('close', resolve));
    client.on('status', (info) => statuses.push(info));
    client.startPush();
    await within(closed, 5_000, 'refused client close');
    expect(statuses).toContainEqual(expect.objectContaining({ level: 'error', code: 'NetStream.Publish.Unauthorized' }));
    expect(statuses.map((status) => status.code)).not.toContain('NetStream.Publish.Start');

    expect(recorder.published).toEqual([]);
    expect(recorder.authorized).toHaveLength(2);
    const testLines = logLines.slice(firstLogLine);
    expect(testLines.filter((line) => line.includes('"publish started"'))).toEqual([]);
    expect(testLines.filter((line) => line.includes('"publish refused"'))).toHaveLength(2);
  }, 20_000);

  it('refuses a key that authorize reports disabled, with its reason', async () => {
    const key = newKey();
    const { recorder, url } = await startServer((streamKey) => ({ accept: false, reason: `stream ${streamKey} is disabled` }));
    const exit = await within(publish(url(`/app/${key}`)).exited, 5_000, 'refused encoder exit');
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toMatch(/Server error: stream sk-\w\.\.\. is disabled\n/);
    expect(recorder.published).toEqual([]);
  }, 15_000);

  it('refuses any application other than app without asking authorize', async () => {
    const { recorder, url } = await startServer(() => ({ accept: true }));
    const exit = await within(publish(url(`/live/${newKey()}`)).exited, 5_000, 'refused encoder exit');
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('unknown RTMP application');
    expect(recorder.authorized).toEqual([]);
    expect(recorder.published).toEqual([]);
  }, 15_000);

  it('refuses a second publish of a live key and leaves the first alone', async () => {
    const key = newKey();
    const { server, recorder, url } = await startServer(acceptOnly(key));
    const first = publish(url(`/app/${key}`));
    const publisher = await waitFor(() => recorder.published[0], 10_000, 'first onPublish');
    await publisher.media;

    const second = await within(publish(url(`/app/${key}`)).exited, 8_000, 'duplicate encoder exit');
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain('already publishing');

    const before = publisher.lastMediaAt();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(publisher.lastMediaAt()).toBeGreaterThan(before);
    expect(first.child.exitCode).toBeNull();
    expect(recorder.published).toHaveLength(1);
    expect(server.publisherFor(key)).toBe(publisher);
    const endedYet = await Promise.race([publisher.ended.then(() => true), Promise.resolve(false)]);
    expect(endedYet).toBe(false);
  }, 30_000);

  it('hands a key to a new publish when the old publisher has gone silent (takeover)', async () => {
    const key = newKey();
    const { server, recorder, url } = await startServer(acceptOnly(key));
    const first = publish(url(`/app/${key}`));
    const frozen = await waitFor(() => recorder.published[0], 10_000, 'first onPublish');
    await frozen.media;
    first.child.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 5_500));

    publish(url(`/app/${key}`));
    const successor = await waitFor(() => recorder.published[1], 10_000, 'second onPublish');
    const { reason } = await within(frozen.ended, 2_000, 'frozen publisher end');
    expect(reason).toMatch(/^taken over by a new publish after \d+ ms without media$/);
    expect(server.publisherFor(key)).toBe(successor);
    await expect(within(successor.media, 5_000, 'successor media')).resolves.toMatchObject({ video: { width: 640 } });
  }, 40_000);

  it.each([
    ['video', { video: ['-c:v', 'flv1'] }, 'video codec Sorenson H.263 not supported: publish H.264 + AAC'],
    ['audio', { audio: ['-c:a', 'libmp3lame'] }, 'audio codec MP3 not supported: publish H.264 + AAC'],
  ])('closes a publish whose %s codec is not H.264 + AAC', async (_kind, codecs, expectedReason) => {
    const key = newKey();
    const { recorder, url } = await startServer(acceptOnly(key));
    const encoder = publish(url(`/app/${key}`), codecs);
    const publisher = await waitFor(() => recorder.published[0], 10_000, 'onPublish');
    await expect(within(publisher.ended, 5_000, 'ended')).resolves.toEqual({ reason: expectedReason });
    await expect(publisher.media).rejects.toThrow(expectedReason);
    const exit = await within(encoder.exited, 5_000, 'encoder exit');
    expect(exit.code).not.toBe(0);
    expect(logLines.some((line) => line.includes(expectedReason))).toBe(true);
  }, 20_000);

  it('ends the publish, and its readers, when the encoder is killed', async () => {
    const key = newKey();
    const { recorder, url } = await startServer(acceptOnly(key));
    const encoder = publish(url(`/app/${key}`));
    const publisher = await waitFor(() => recorder.published[0], 10_000, 'onPublish');
    await publisher.media;
    const reader = run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', publisher.readUrl, '-f', 'null', '-']);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(reader.child.exitCode).toBeNull();

    encoder.child.kill('SIGKILL');
    const { reason } = await within(publisher.ended, 3_000, 'ended');
    expect(reason).toMatch(/connection (closed by the client|error)/);
    await within(reader.exited, 5_000, 'reader exit');
  }, 30_000);

  it('closes a publisher that stays connected but stops sending media', async () => {
    const key = newKey();
    const { recorder, url } = await startServer(acceptOnly(key), { mediaInactivityTimeoutMs: 2_000 });
    const encoder = publish(url(`/app/${key}`));
    const publisher = await waitFor(() => recorder.published[0], 10_000, 'onPublish');
    await publisher.media;
    encoder.child.kill('SIGSTOP');
    const frozenAt = Date.now();
    const { reason } = await within(publisher.ended, 5_000, 'ended');
    expect(reason).toMatch(/^no media for \d+ ms$/);
    expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(1_500);
  }, 20_000);

  it('keeps a publisher whose media waited in the socket while this process was paused', async () => {
    const key = newKey();
    const { recorder, url } = await startServer(acceptOnly(key), { mediaInactivityTimeoutMs: 2_000 });
    publish(url(`/app/${key}`));
    const publisher = await waitFor(() => recorder.published[0], 10_000, 'onPublish');
    await publisher.media;
    let endReason: string | undefined;
    void publisher.ended.then(({ reason }) => (endReason = reason));
    // The event loop blocked for twice the inactivity timeout, as a SIGSTOPped node is: the encoder
    // keeps sending into the socket buffers, and the timers fire before that media is read.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4_000);
    const resumedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(endReason, 'the publish is still on').toBeUndefined();
    expect(publisher.lastMediaAt()).toBeGreaterThanOrEqual(resumedAt);
  }, 30_000);

  it('disconnects a reader that falls too far behind and keeps the publish going', async () => {
    const firstLogLine = logLines.length;
    const key = newKey();
    const { recorder, url } = await startServer(acceptOnly(key), { maxReaderBacklogBytes: 1024 * 1024 });
    // Noise makes x264 spend its 20 Mbit/s, so the backlog grows within seconds.
    publish(url(`/app/${key}`), { video: [...H264, '-vf', 'noise=alls=40:allf=t', '-b:v', '20M'] });
    const publisher = await waitFor(() => recorder.published[0], 10_000, 'onPublish');
    await publisher.media;
    const reader = run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', publisher.readUrl, '-f', 'null', '-']);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    reader.child.kill('SIGSTOP');

    await waitFor(() => logLines.slice(firstLogLine).find((line) => line.includes('"rtmp reader fell behind; disconnecting it"')), 20_000, 'the reader to be cut off');
    expect(Date.now() - publisher.lastMediaAt()).toBeLessThan(1_000);
    expect(server?.publisherFor(key)).toBe(publisher);
    reader.child.kill('SIGCONT');
    await within(reader.exited, 10_000, 'reader exit');
  }, 40_000);

  it('refuses to play to any host but this one', async (context) => {
    const remoteAddress = nonLoopbackIPv4();
    if (!remoteAddress) return context.skip();
    const key = newKey();
    const { server, recorder } = await startServer(acceptOnly(key));
    publish(`rtmp://127.0.0.1:${server.port}/app/${key}`);
    await (await waitFor(() => recorder.published[0], 10_000, 'onPublish')).media;

    const reader = run('ffprobe', ['-v', 'error', `rtmp://${remoteAddress}:${server.port}/app/${key}`]);
    const exit = await within(reader.exited, 5_000, 'remote reader exit');
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('playback is not offered over RTMP');
  }, 20_000);

  it('survives a malformed command instead of throwing out of the socket handler', async () => {
    const key = newKey();
    const { url } = await startServer(acceptOnly(key));
    const port = Number(new URL(url('/')).port);
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    // A connect command whose command object is null: NMS reads cmdObj.app and throws.
    const amf = Buffer.concat([
      Buffer.from([0x02, 0x00, 0x07]), Buffer.from('connect'),
      Buffer.from([0x00, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0]),
      Buffer.from([0x05]),
    ]);
    const header = Buffer.from([0x03, 0, 0, 0, 0, 0, amf.length, 0x14, 0, 0, 0, 0]);
    socket.write(Buffer.concat([Buffer.from([0x03]), Buffer.alloc(1536), Buffer.alloc(1536), header, amf]));
    await within(closed, 3_000, 'malformed client close');
    expect(logLines.some((line) => line.includes('"rtmp protocol error"'))).toBe(true);

    const encoder = publish(url(`/app/${key}`));
    expect(encoder.child.exitCode).toBeNull();
    await expect(within((async () => (await waitFor(() => server?.publisherFor(key), 10_000, 'publish')).media)(), 12_000, 'media')).resolves.toBeDefined();
  }, 20_000);

  it('reports a port in use and stays startable', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(startServer(() => ({ accept: true }), { port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    const { server } = await startServer(() => ({ accept: true }), { port });
    expect(server.port).toBe(port);
    await expect(startRtmpServer({ slot, port: 0, log, authorize: async () => ({ accept: true }), onPublish: () => undefined })).rejects.toThrow(
      /already running/,
    );
  });

  it('close() ends every session and the listener quickly, and a new server can take the port', async () => {
    const key = newKey();
    const first = await startServer(acceptOnly(key));
    const port = first.server.port;
    const encoder = publish(first.url(`/app/${key}`));
    const publisher = await waitFor(() => first.recorder.published[0], 10_000, 'onPublish');
    await publisher.media;
    const reader = run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', publisher.readUrl, '-f', 'null', '-']);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const closingAt = Date.now();
    await first.server.close();
    expect(Date.now() - closingAt).toBeLessThan(2_000);
    await expect(within(publisher.ended, 100, 'ended')).resolves.toEqual({ reason: 'server closed' });
    await within(encoder.exited, 5_000, 'encoder exit');
    await within(reader.exited, 5_000, 'reader exit');

    const second = await startServer(acceptOnly(key), { port });
    publish(second.url(`/app/${key}`));
    const again = await waitFor(() => second.recorder.published[0], 10_000, 'onPublish after restart');
    await expect(within(again.media, 5_000, 'media after restart')).resolves.toMatchObject({ audio: { codec: 'aac' } });
  }, 40_000);
});
