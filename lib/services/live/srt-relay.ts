import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { Logger } from 'pino';
import type { RtmpServer } from '../../ingest/rtmp/rtmp-server';
import { RTMP_APP } from '../../ingest/rtmp/stream-path';
import type { SrtRelay } from '../../ingest/srt/srt-gateway';
import { buildSrtRelayArgs } from '../../media/live/srt-relay-args';
import { terminateThenKill } from '../../media/child-process-set';
import { TailBuffer } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';

// One SRT caller's listener: a loopback ffmpeg that takes the caller's stream (relayed by the
// gateway) and publishes it, as is, to this node's RTMP server with a one-time relay token, so the
// broadcast reports SRT and the caller's address.

const STOP_GRACE_MS = 2_000;

export const openSrtRelay = async ({
  ffmpegPath,
  rtmpServer,
  streamKey,
  passphrase,
  remoteAddress,
  firstDataAt,
  log,
}: {
  ffmpegPath: string;
  rtmpServer: RtmpServer;
  streamKey: string;
  passphrase: string | null;
  remoteAddress: string;
  firstDataAt: () => number | null;
  log: Logger;
}): Promise<SrtRelay> => {
  const listenPort = await freeLoopbackUdpPort();
  // By the time the relay publishes, the caller's first media has passed the gateway.
  const token = rtmpServer.admitRelay({ streamKey, protocol: 'srt', remoteAddress, connectedAt: () => firstDataAt() ?? Date.now() });
  const publishUrl = `rtmp://127.0.0.1:${rtmpServer.port}/${RTMP_APP}/${streamKey}?relay=${token}`;
  const child = spawn(ffmpegPath, buildSrtRelayArgs({ listenPort, passphrase, publishUrl }), { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  childProcesses().track(child);
  const stderr = new TailBuffer(4 * 1024);
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const done = new Promise<void>((resolve) => {
    child.once('exit', (code) => {
      // Its errors name the input and output URLs, which carry the passphrase and the key.
      let tail = stderr.toString().trim().replaceAll(streamKey, '<stream key>');
      if (passphrase) tail = tail.replaceAll(passphrase, '<passphrase>');
      log.info({ exitCode: code, ...(tail && { stderr: tail.slice(-600) }) }, 'srt relay ended');
      resolve();
    });
    child.once('error', (error) => {
      log.error({ error: error.message }, 'srt relay could not start');
      resolve();
    });
  });
  return {
    port: listenPort,
    done,
    stop: () => terminateThenKill(child, STOP_GRACE_MS),
  };
};

// The port is free when asked; ffmpeg binds it a moment later (a race lost only to another
// process binding the same ephemeral port in between, which the gateway sees as no answer).
const freeLoopbackUdpPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createSocket('udp4');
    probe.once('error', reject);
    probe.bind(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
