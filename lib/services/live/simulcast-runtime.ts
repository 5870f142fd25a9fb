import { spawn } from 'node:child_process';
import type { Logger } from 'pino';
import { buildRestreamArgs, restreamUrlOf, type RestreamTarget } from '../../media/live/restream-args';
import { terminateThenKill } from '../../media/child-process-set';
import { TailBuffer } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';
import { markSimulcastTargetStatus, simulcastTargetsOf, type SimulcastTargetStatus } from './simulcast-state';
import { backoffDelayMs } from '../../utils/backoff';

// A connected publisher's broadcast, restreamed to each of its live stream's simulcast targets: one
// ffmpeg per target reads the broadcast back from the node's RTMP server and copies it (no
// re-encode: 0.004–0.014 of a core for 3 Mb/s, measured in the live bench) to the target. Targets
// are independent processes: one that refuses, drops or stalls only restarts itself, with backoff,
// and never touches the broadcast or the others (a reader that stops reading is cut off by the RTMP
// server's backlog limit).
// Status, as Mux reports it: starting when the publisher connects, broadcasting once bytes go out,
// errored while the target fails (retried), idle when the publisher leaves.

export type Simulcast = { stop(): Promise<void> };

// A restream that ran this long before failing starts its backoff over.
const HEALTHY_RUN_MS = 30_000;
const STOP_GRACE_MS = 2_000;

type TargetRun = { exited: Promise<{ code: number | null; stderr: string; broadcastMs: number }>; stop(): void };

const runRestream = ({ ffmpegPath, readUrl, target, onBroadcasting }: { ffmpegPath: string; readUrl: string; target: RestreamTarget; onBroadcasting: () => void }): TargetRun => {
  const child = spawn(ffmpegPath, buildRestreamArgs({ readUrl, target }), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  childProcesses().track(child);
  const stderr = new TailBuffer(2 * 1024);
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  let broadcastingSince: number | null = null;
  let progress = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    if (broadcastingSince !== null) return;
    progress = (progress + chunk.toString('latin1')).slice(-2048);
    // Bytes written to the target: its connection is up and it took the stream.
    const written = /total_size=(\d+)/g;
    for (let match = written.exec(progress); match; match = written.exec(progress)) {
      if (Number(match[1]) > 0) {
        broadcastingSince = Date.now();
        onBroadcasting();
        return;
      }
    }
  });
  const exited = new Promise<{ code: number | null; stderr: string; broadcastMs: number }>((resolve) => {
    const done = (code: number | null) => {
      resolve({ code, stderr: stderr.toString().trim(), broadcastMs: broadcastingSince === null ? 0 : Date.now() - broadcastingSince });
    };
    child.once('exit', done);
    child.once('error', () => done(null));
  });
  return { exited, stop: () => terminateThenKill(child, STOP_GRACE_MS) };
};

/** Restreams the publisher read at `readUrl` to every simulcast target of the live stream, until stopped. */
export const startSimulcast = async ({
  liveStreamId,
  readUrl,
  ffmpegPath,
  log,
}: {
  liveStreamId: string;
  readUrl: string;
  ffmpegPath: string;
  log: Logger;
}): Promise<Simulcast> => {
  const targets = await simulcastTargetsOf(liveStreamId);
  const stopping = new AbortController();
  const running = new Set<TargetRun>();
  // The stream key and the target's own key never reach the logs.
  const streamKey = readUrl.slice(readUrl.lastIndexOf('/') + 1);

  const setStatus = (targetId: string, status: SimulcastTargetStatus, severity?: 'normal' | 'fatal') =>
    markSimulcastTargetStatus(targetId, status, severity).catch((error: unknown) => log.error({ err: error, targetId, status }, 'could not record a simulcast target status'));

  const keepRestreaming = async (target: { id: string; url: string; streamKey: string | null }) => {
    const targetLog = log.child({ simulcastTargetId: target.id });
    const redact = (text: string) => {
      let redacted = text.replaceAll(streamKey, '<stream key>').replaceAll(restreamUrlOf(target), '<target URL>');
      if (target.streamKey) redacted = redacted.replaceAll(target.streamKey, '<target stream key>');
      return redacted;
    };
    let failures = 0;
    while (!stopping.signal.aborted) {
      await setStatus(target.id, 'starting');
      if (stopping.signal.aborted) break;
      const run = runRestream({ ffmpegPath, readUrl, target, onBroadcasting: () => void setStatus(target.id, 'broadcasting') });
      running.add(run);
      const { code, stderr, broadcastMs } = await run.exited;
      running.delete(run);
      if (stopping.signal.aborted) break;
      failures = broadcastMs >= HEALTHY_RUN_MS ? 1 : failures + 1;
      const retryMs = backoffDelayMs(failures);
      targetLog.warn({ exitCode: code, stderr: redact(stderr).slice(-400), retryMs }, 'simulcast target failed; retrying');
      await setStatus(target.id, 'errored', 'normal');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryMs);
        stopping.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
    }
    await setStatus(target.id, 'idle');
  };

  const loops = targets.map((target) => keepRestreaming(target));
  if (targets.length > 0) log.info({ targets: targets.length }, 'simulcast started');
  return {
    stop: async () => {
      stopping.abort();
      for (const run of running) run.stop();
      await Promise.all(loops);
    },
  };
};
