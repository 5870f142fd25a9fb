import { statSync } from 'node:fs';
import path from 'node:path';
import type { AccessToken } from './bench-server';
import { createLiveStream, createSimulcastTarget, redactKeys, rtmpUrlOf, waitForNoPackagers } from './live-api';
import type { LiveInput } from './live-inputs';
import { cpuSecondsOf, startLivePublisher, waitUntilListening } from './live-processes';
import { freePort } from '../free-port.mjs';
import type { KeyframeProcess } from '../keyframe-process';
import { descendantsOf, exitCodeOf, interruptChild, isFfmpeg, spawnTracked } from '../processes';
import { errorMessage, median, round, sleep } from '../stats';

// Simulcast (issue 30): one broadcast restreamed to local RTMP receivers — ffmpeg listening for one
// publish and writing it to a file, as YouTube's or Twitch's ingest would take it. Measured: from
// the publisher's spawn to the first bytes in each receiver's file, and the CPU of each restream
// (the server's ffmpeg writing to that receiver) over a window once everything runs.

export type LiveSimulcastResult = {
  targets: number;
  /** Publisher spawn → first bytes at each receiver. */
  firstBytesMs: number[];
  medianFirstBytesMs: number | null;
  /** CPU-s per second of each target's restream process over the window. */
  restreamCpuPerSecond: number[];
  windowSeconds: number;
};

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

export const measureLiveSimulcast = async ({
  server,
  token,
  rtmpPort,
  input,
  workDir,
  targets = 2,
  windowSeconds = 20,
  log,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  rtmpPort: number;
  input: LiveInput;
  workDir: string;
  targets?: number;
  windowSeconds?: number;
  log: (line: string) => void;
}): Promise<LiveSimulcastResult> => {
  const stream = await createLiveStream(server.baseUrl, token, 'standard');
  const receivers = await Promise.all(
    Array.from({ length: targets }, async (_, index) => {
      const port = await freePort();
      const file = path.join(workDir, `simulcast-receiver-${index}.flv`);
      const child = spawnTracked('ffmpeg', ['-hide_banner', '-nostdin', '-v', 'error', '-y', '-listen', '1', '-i', `rtmp://127.0.0.1:${port}/live/receiver`, '-c', 'copy', '-f', 'flv', file], { stdio: 'ignore' });
      const exited = exitCodeOf(child);
      await waitUntilListening(port, 10_000);
      return { port, file, child, exited };
    }),
  );
  for (const receiver of receivers) await createSimulcastTarget(server.baseUrl, token, stream, { url: `rtmp://127.0.0.1:${receiver.port}/live`, stream_key: 'receiver' });
  log(`live simulcast: a 720p30 broadcast to ${targets} local RTMP receivers…`);
  const publisher = startLivePublisher({ inputPath: input.path, ingestUrl: rtmpUrlOf(rtmpPort, stream) });
  try {
    const firstBytesMs: Array<number | null> = receivers.map(() => null);
    const deadline = Date.now() + 30_000;
    while (firstBytesMs.some((value) => value === null) && Date.now() < deadline) {
      receivers.forEach((receiver, index) => {
        if (firstBytesMs[index] === null && sizeOf(receiver.file) > 0) firstBytesMs[index] = Date.now() - publisher.startedAtMs;
      });
      await sleep(20);
    }
    if (firstBytesMs.some((value) => value === null)) throw new Error('a receiver got nothing within 30 s');
    await sleep(3_000);
    const restreams = receivers.map((receiver) =>
      server.pid === undefined ? undefined : descendantsOf(server.pid).find((entry) => isFfmpeg(entry) && entry.argv.some((arg) => arg.includes(`127.0.0.1:${receiver.port}/live`)))?.pid,
    );
    const before = restreams.map((pid) => (pid === undefined ? null : cpuSecondsOf(pid)));
    await sleep(windowSeconds * 1000);
    const restreamCpuPerSecond = restreams.map((pid, index) => {
      const start = before[index];
      const end = pid === undefined ? null : cpuSecondsOf(pid);
      return start === null || start === undefined || end === null ? Number.NaN : round((end - start) / windowSeconds, 4);
    });
    const measured = firstBytesMs.filter((value): value is number => value !== null);
    const result = { targets, firstBytesMs: measured, medianFirstBytesMs: median(measured), restreamCpuPerSecond, windowSeconds };
    log(`live simulcast: first bytes at the receivers ${measured.join(', ')} ms after the publisher's spawn; restream CPU ${restreamCpuPerSecond.join(', ')} CPU-s/s`);
    return result;
  } catch (error) {
    throw new Error(redactKeys(`${errorMessage(error)}; publisher: ${publisher.stderr().slice(-300)}`, [stream]));
  } finally {
    await publisher.stop();
    await Promise.all(receivers.map((receiver) => interruptChild(receiver.child, receiver.exited, 5_000)));
    await waitForNoPackagers(server.pid);
  }
};
