import { spawn } from 'node:child_process';
import { exitCodeOf, interruptChild } from '../processes';
import { abortableSleep, dataOf, type RecordedHttp } from './recorded-http';
import type { ChaosTarget } from './target';
import type { BroadcastRecord, PublishSession } from './workload-record';

// One live stream published for the whole run, as an encoder with automatic reconnection (OBS)
// would: ffmpeg sends a real-time test pattern over RTMP to one app node; when the connection ends
// (the node was killed, or did not answer a connect for 10 s) it connects to the next node 1 s
// later. A node frozen mid-publish is not left: loopback socket buffers hold a minute of this
// stream (measured: ffmpeg still writing 56 s into a peer's SIGSTOP), read when it resumes. At
// the end the stream is completed as Mux's API does it, and its recording must hold what was sent.

const RECONNECT_DELAY_MS = 1_000;
// ffmpeg's own I/O timeout (µs): without it a frozen node keeps the encoder blocked forever.
const RTMP_IO_TIMEOUT_US = 10_000_000;
const STOP_GRACE_MS = 5_000;

type LiveStreamObject = { id?: string; stream_key?: string; recent_asset_ids?: string[]; active_asset_id?: string };

// A lavfi test pattern with a tone, H.264 + AAC in FLV, kept light (360p, 24 fps) for a 2-core box.
const publishArgs = (url: string): string[] => [
  '-hide_banner', '-loglevel', 'warning',
  '-re', '-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=24',
  '-re', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
  '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p',
  '-g', '24', '-keyint_min', '24', '-sc_threshold', '0', '-b:v', '800k',
  '-c:a', 'aac', '-b:a', '96k',
  '-rw_timeout', String(RTMP_IO_TIMEOUT_US),
  '-f', 'flv', url,
];

type Publisher = { exited: Promise<number | null>; stop(): Promise<void>; stderr(): string };

const publish = (url: string): Publisher => {
  const child = spawn('ffmpeg', publishArgs(url), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-2_000);
  });
  child.once('error', (error) => {
    stderr += `\n${error.message}`;
  });
  const exited = exitCodeOf(child);
  return {
    exited,
    stderr: () => stderr,
    stop: () => interruptChild(child, exited, STOP_GRACE_MS),
  };
};

export type Broadcast = { finish(): Promise<BroadcastRecord> };

/** Creates the live stream and starts publishing; null when the target has no RTMP ingest or the stream could not be created. */
export const startBroadcast = async ({
  target,
  http,
  log,
}: {
  target: ChaosTarget;
  http: RecordedHttp;
  log: (line: string) => void;
}): Promise<Broadcast | null> => {
  if (target.rtmpUrls().length === 0) return null;
  const created = await http.api('live-stream-create', 'POST', '/video/v1/live-streams', {
    playback_policy: ['public'],
    new_asset_settings: { playback_policy: ['public'] },
  });
  const stream = dataOf<LiveStreamObject>(created);
  if (created.status !== 201 || !stream?.id || !stream.stream_key) {
    log(`broadcast: creating the live stream answered ${created.status}; no broadcast this run`);
    return null;
  }
  const liveStreamId = stream.id;
  const streamKey = stream.stream_key;
  const sessions: PublishSession[] = [];
  const gaps: BroadcastRecord['gaps'] = [];
  const stopping = new AbortController();
  let current: Publisher | null = null;

  const keepPublishing = async () => {
    let lastEndedAt: number | null = null;
    for (let attempt = 0; !stopping.signal.aborted; attempt++) {
      const urls = target.rtmpUrls();
      const rtmpUrl = urls[attempt % urls.length];
      if (!rtmpUrl) break;
      const startedAt = Date.now();
      if (lastEndedAt !== null) gaps.push({ startedAt: lastEndedAt, seconds: (startedAt - lastEndedAt) / 1000 });
      const publisher = publish(`${rtmpUrl}/${streamKey}`);
      current = publisher;
      const exitCode = await publisher.exited;
      lastEndedAt = Date.now();
      const endedBy = stopping.signal.aborted ? 'stop' : 'exit';
      const stderrTail = publisher.stderr().slice(-500);
      // A node that did not answer (frozen while it was being connected to) took nothing during the
      // I/O timeout ffmpeg waited out.
      const stalledSeconds = endedBy === 'exit' && /timed out/i.test(stderrTail) ? RTMP_IO_TIMEOUT_US / 1e6 : 0;
      sessions.push({ rtmpUrl, startedAt, endedAt: lastEndedAt, exitCode, endedBy, stderrTail, stalledSeconds });
      if (endedBy === 'exit') {
        log(`broadcast: ffmpeg to ${rtmpUrl} ended (code ${exitCode}) after ${Math.round((lastEndedAt - startedAt) / 1000)} s; reconnecting to the next node`);
        await abortableSleep(RECONNECT_DELAY_MS, stopping.signal);
      }
    }
  };
  const publishing = keepPublishing();

  const finish = async (): Promise<BroadcastRecord> => {
    stopping.abort();
    await current?.stop();
    await publishing;
    let completeStatus: number | null = null;
    // Like an integrator's script, the complete call is retried a few times when the API is down.
    for (let attempt = 0; attempt < 3 && (completeStatus === null || completeStatus === 0 || completeStatus >= 500); attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
      completeStatus = (await http.api('live-stream-complete', 'PUT', `/video/v1/live-streams/${liveStreamId}/complete`)).status;
    }
    const read = await http.api('live-stream-get', 'GET', `/video/v1/live-streams/${liveStreamId}`);
    const publishedMs = sessions.reduce((sum, session) => sum + (session.endedAt - session.startedAt) - session.stalledSeconds * 1000, 0);
    return {
      liveStreamId,
      sessions,
      publishedSeconds: publishedMs / 1000,
      gaps,
      completeStatus,
      recordingAssetIds: dataOf<LiveStreamObject>(read)?.recent_asset_ids ?? [],
    };
  };
  return { finish };
};
