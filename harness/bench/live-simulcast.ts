import { statSync } from 'node:fs';
import path from 'node:path';
import { createLiveStream, createSimulcastTarget, redactKeys, rtmpUrlOf, waitForNoPackagers, type LiveCaseContext } from './live-api';
import { cpuSecondsOf, startLivePublisher, waitUntilListening } from './live-processes';
import { freePort } from '../free-port.mjs';
import { descendantsOf, exitCodeOf, interruptChild, isFfmpeg, spawnTracked } from '../processes';
import { errorMessage, median, round, sleep } from '../stats';
import { NGINX_RTMP_MODULE, NginxRtmpReceiver } from './nginx-rtmp-receiver';
import { ensureSystemFile, ensureSystemTool } from './system-tools';

// Simulcast (issue 30): one broadcast restreamed to two local RTMP receivers of two kinds, as a
// platform's ingest would take it: Debian's nginx with its RTMP module (nginx-rtmp-receiver.ts,
// which announces a 4096-byte chunk size as ingest servers do) and ffmpeg listening for one publish
// (which leaves RTMP's initial 128-byte chunks: the restream's ffmpeg then makes two send() calls
// per 128 bytes, ~5,900 a second for a 3 Mb/s stream, measured with strace). Each writes what
// arrives to a file. Measured: from the publisher's spawn to the first media in each receiver's
// file, and the CPU of each restream (the server's ffmpeg writing to that receiver) over a window
// once everything runs. Without the RTMP module (not installable) only the ffmpeg receiver runs.

export type SimulcastReceiverKind = 'nginx-rtmp' | 'ffmpeg -listen';

export type LiveSimulcastResult = {
  targets: number;
  /** Per target, in the order of the arrays below. */
  receiverKinds: SimulcastReceiverKind[];
  /** Why a receiver kind did not run, if one did not. */
  skipped: string | null;
  /** Publisher spawn → first media at each receiver. */
  firstBytesMs: number[];
  medianFirstBytesMs: number | null;
  /** CPU-s per second of each target's restream process over the window. */
  restreamCpuPerSecond: number[];
  windowSeconds: number;
};

// A receiver's file holds media once it is past the FLV header and metadata (nginx writes them when
// the publish starts, before any media): a 720p keyframe alone is larger.
const FIRST_MEDIA_BYTES = 8 * 1024;

/** Bytes a receiver has written to its file so far (0 before it has one). */
export const recordedBytes = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

type Receiver = { kind: SimulcastReceiverKind; url: string; streamKey: string; file: string; stop: () => Promise<void> };

/** ffmpeg listening on a free port for one RTMP publish (stream key "receiver") and writing it to `file`. */
export const startFfmpegRtmpReceiver = async (file: string): Promise<Receiver & { port: number }> => {
  const port = await freePort();
  const child = spawnTracked('ffmpeg', ['-hide_banner', '-nostdin', '-v', 'error', '-y', '-listen', '1', '-i', `rtmp://127.0.0.1:${port}/live/receiver`, '-c', 'copy', '-f', 'flv', file], { stdio: 'ignore' });
  const exited = exitCodeOf(child);
  await waitUntilListening(port, 10_000);
  return { kind: 'ffmpeg -listen', port, url: `rtmp://127.0.0.1:${port}/live`, streamKey: 'receiver', file, stop: () => interruptChild(child, exited, 5_000) };
};

const nginxReceiver = async (workDir: string, log: (line: string) => void): Promise<Receiver | string> => {
  const nginx = await ensureSystemTool({ binary: 'nginx', versionArgs: ['-v'], aptPackages: ['nginx-light', 'nginx'], log });
  if (!nginx.available) return nginx.reason;
  const module = await ensureSystemFile({ file: NGINX_RTMP_MODULE, aptPackage: 'libnginx-mod-rtmp', log });
  if (!module.available) return module.reason;
  const receiver = await NginxRtmpReceiver.start({ nginx: nginx.path, workDir });
  return { kind: 'nginx-rtmp', url: receiver.ingestUrl, streamKey: 'receiver', file: receiver.recordingOf('receiver'), stop: () => receiver.dispose() };
};

export const measureLiveSimulcast = async ({
  server,
  token,
  rtmpPort,
  input,
  workDir,
  windowSeconds = 20,
  log,
}: LiveCaseContext & {
  workDir: string;
  windowSeconds?: number;
}): Promise<LiveSimulcastResult> => {
  const stream = await createLiveStream(server.baseUrl, token, 'standard');
  const nginx = await nginxReceiver(workDir, log);
  const receivers = [...(typeof nginx === 'string' ? [] : [nginx]), await startFfmpegRtmpReceiver(path.join(workDir, 'simulcast-receiver-ffmpeg.flv'))];
  const skipped = typeof nginx === 'string' ? `nginx-rtmp: ${nginx}` : null;
  if (skipped) log(`live simulcast: ${skipped}`);
  let publisher: ReturnType<typeof startLivePublisher> | null = null;
  try {
    for (const receiver of receivers) await createSimulcastTarget(server.baseUrl, token, stream, { url: receiver.url, stream_key: receiver.streamKey });
    log(`live simulcast: a 720p30 broadcast to ${receivers.map((receiver) => receiver.kind).join(' and ')}…`);
    const started = startLivePublisher({ inputPath: input.path, ingestUrl: rtmpUrlOf(rtmpPort, stream) });
    publisher = started;
    const firstBytesMs: Array<number | null> = receivers.map(() => null);
    const deadline = Date.now() + 30_000;
    while (firstBytesMs.some((value) => value === null) && Date.now() < deadline) {
      receivers.forEach((receiver, index) => {
        if (firstBytesMs[index] === null && recordedBytes(receiver.file) > FIRST_MEDIA_BYTES) firstBytesMs[index] = Date.now() - started.startedAtMs;
      });
      await sleep(20);
    }
    if (firstBytesMs.some((value) => value === null)) throw new Error('a receiver got nothing within 30 s');
    await sleep(3_000);
    const restreams = receivers.map((receiver) =>
      server.pid === undefined
        ? undefined
        : descendantsOf(server.pid).find((entry) => isFfmpeg(entry) && entry.argv.some((arg) => arg === `${receiver.url}/${receiver.streamKey}`))?.pid,
    );
    const before = restreams.map((pid) => (pid === undefined ? null : cpuSecondsOf(pid)));
    await sleep(windowSeconds * 1000);
    const restreamCpuPerSecond = restreams.map((pid, index) => {
      const start = before[index];
      const end = pid === undefined ? null : cpuSecondsOf(pid);
      return start === null || start === undefined || end === null ? Number.NaN : round((end - start) / windowSeconds, 4);
    });
    const measured = firstBytesMs.filter((value): value is number => value !== null);
    const receiverKinds = receivers.map((receiver) => receiver.kind);
    log(`live simulcast: first media at ${receiverKinds.join(', ')} ${measured.join(', ')} ms after the publisher's spawn; restream CPU ${restreamCpuPerSecond.join(', ')} CPU-s/s`);
    return { targets: receivers.length, receiverKinds, skipped, firstBytesMs: measured, medianFirstBytesMs: median(measured), restreamCpuPerSecond, windowSeconds };
  } catch (error) {
    throw new Error(redactKeys(`${errorMessage(error)}; publisher: ${publisher?.stderr().slice(-300) ?? 'not started'}`, [stream]));
  } finally {
    await publisher?.stop();
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await waitForNoPackagers(server.pid);
  }
};
