import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planLiveLadder, type LiveRung } from '../../lib/media/live/live-ladder';
import { createLiveStream, multivariantUrlOf, redactKeys, rtmpUrlOf, waitForNoPackagers } from './live-api';
import type { LiveInput } from './live-inputs';
import { peerLadderArgs, peerPlaylistPath } from './live-peer';
import { parseMediaPlaylist, PlaylistWatcher, variantResolutions, waitForPlayable } from './live-playlists';
import { cpuSecondsOf, packagerPidOf, serverNodePids, startLivePublisher, waitUntilListening, type LivePublisher } from './live-processes';
import { freePort } from '../free-port.mjs';
import type { KeyframeProcess } from '../keyframe-process';
import type { AccessToken } from './bench-server';
import { killTreeSync, ownDirectory, releaseDirectory, spawnTracked } from '../processes';
import { ratio, round, sleep } from '../stats';

// CPU per stream: one publisher for `runSeconds`, CPU seconds per wall second over the last
// `windowSeconds` (after the start-up), of Keyframe's packager ffmpeg and of the server's node
// processes; then, in the same run, of the peer (live-peer.ts) fed by the same kind of publisher.
// Both sides' variant playlists are read once a second to check that they kept up with real time
// (for Keyframe that is one viewer's playlist requests, a little of the server's CPU).

export type LiveCpuRun = {
  side: 'keyframe' | 'peer';
  /** Publisher spawn → the first media playlist listed a segment. */
  playableMs: number | null;
  windowSeconds: number;
  /** CPU seconds per wall-clock second (1 = one core). */
  packagerCpuPerSecond: number | null;
  /** Keyframe's node processes (app + playback workers); 0 for the peer, which is one process. */
  serverCpuPerSecond: number;
  totalCpuPerSecond: number | null;
  publisherCpuPerSecond: number | null;
  /** Slowest variant's listed media seconds per wall second over the window (fitted; see live-playlists.ts). */
  minListedRate: number | null;
  resolutions: string[];
};

export type LiveCpuComparison = {
  input: string;
  rungs: string[];
  preset: string;
  keyframe: LiveCpuRun;
  peer: LiveCpuRun;
  /** Keyframe (packager + server) ÷ peer. */
  totalVsPeer: number | null;
  /** Keyframe's packager alone ÷ peer. */
  packagerVsPeer: number | null;
  /** The idle server's own floor (measured before, no broadcast) taken out: what the stream adds, ÷ peer. */
  aboveIdleVsPeer: number | null;
  serverIdleCpuPerSecond: number | null;
  peerArgs: string;
};

type CpuSnapshot = { atMs: number; packager: number | null; server: number; publisher: number | null };

const snapshot = (packagerPid: number | null, serverPids: number[], publisher: LivePublisher): CpuSnapshot => ({
  atMs: Date.now(),
  packager: packagerPid === null ? null : cpuSecondsOf(packagerPid),
  server: serverPids.reduce((sum, pid) => sum + (cpuSecondsOf(pid) ?? 0), 0),
  publisher: publisher.pid === undefined ? null : cpuSecondsOf(publisher.pid),
});

const perSecond = (before: number | null, after: number | null, wallSeconds: number): number | null =>
  before === null || after === null || wallSeconds <= 0 ? null : round((after - before) / wallSeconds, 3);

const minRate = (watcher: PlaylistWatcher, sources: string[], fromMs: number, toMs: number): number | null => {
  const rates = sources.map((source) => watcher.growth(source, fromMs, toMs).fittedRate);
  return rates.some((rate) => rate === null) ? null : Math.min(...(rates as number[]));
};

const measureWindow = async ({
  startedAtMs,
  runSeconds,
  windowSeconds,
  packagerPid,
  serverPids,
  publisher,
  watcher,
  sources,
}: {
  startedAtMs: number;
  runSeconds: number;
  windowSeconds: number;
  packagerPid: () => number | null;
  serverPids: number[];
  publisher: LivePublisher;
  watcher: PlaylistWatcher;
  sources: string[];
}) => {
  await sleep(Math.max(0, startedAtMs + (runSeconds - windowSeconds) * 1000 - Date.now()));
  const pid = packagerPid();
  const before = snapshot(pid, serverPids, publisher);
  await sleep(Math.max(0, startedAtMs + runSeconds * 1000 - Date.now()));
  const after = snapshot(pid, serverPids, publisher);
  const wall = (after.atMs - before.atMs) / 1000;
  return {
    wall,
    packager: perSecond(before.packager, after.packager, wall),
    server: perSecond(before.server, after.server, wall) ?? 0,
    publisher: perSecond(before.publisher, after.publisher, wall),
    minListedRate: minRate(watcher, sources, before.atMs, after.atMs),
  };
};

const keyframeRun = async ({
  server,
  token,
  rtmpPort,
  input,
  runSeconds,
  windowSeconds,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  rtmpPort: number;
  input: LiveInput;
  runSeconds: number;
  windowSeconds: number;
}): Promise<LiveCpuRun> => {
  const serverPid = server.pid;
  if (serverPid === undefined) throw new Error('the server has no pid');
  const stream = await createLiveStream(server.baseUrl, token, 'standard');
  const publisher = startLivePublisher({ inputPath: input.path, ingestUrl: rtmpUrlOf(rtmpPort, stream) });
  let watcher: PlaylistWatcher | null = null;
  try {
    const playable = await waitForPlayable({ multivariantUrl: multivariantUrlOf(server.baseUrl, stream), startedAtMs: publisher.startedAtMs, timeoutMs: 30_000 });
    watcher = PlaylistWatcher.http(playable.variantUrls, 1_000);
    const measured = await measureWindow({
      startedAtMs: publisher.startedAtMs,
      runSeconds,
      windowSeconds,
      packagerPid: () => packagerPidOf(serverPid, stream.streamKey),
      serverPids: serverNodePids(serverPid),
      publisher,
      watcher,
      sources: playable.variantUrls,
    });
    return {
      side: 'keyframe',
      playableMs: playable.playableMs,
      windowSeconds: round(measured.wall, 1),
      packagerCpuPerSecond: measured.packager,
      serverCpuPerSecond: measured.server,
      totalCpuPerSecond: measured.packager === null ? null : round(measured.packager + measured.server, 3),
      publisherCpuPerSecond: measured.publisher,
      minListedRate: measured.minListedRate,
      resolutions: variantResolutions(playable.multivariant),
    };
  } catch (error) {
    throw new Error(redactKeys(`${(error as Error).message}; publisher: ${publisher.stderr().slice(-300)}`, [stream]));
  } finally {
    await watcher?.stop();
    await publisher.stop();
    await waitForNoPackagers(serverPid);
  }
};

const peerRun = async ({
  input,
  rungs,
  preset,
  runSeconds,
  windowSeconds,
}: {
  input: LiveInput;
  rungs: LiveRung[];
  preset: string;
  runSeconds: number;
  windowSeconds: number;
}): Promise<{ run: LiveCpuRun; args: string }> => {
  const outDir = ownDirectory(mkdtempSync(path.join(os.tmpdir(), 'keyframe-bench-live-peer-')));
  rungs.forEach((_, index) => mkdirSync(path.join(outDir, String(index)), { recursive: true }));
  const port = await freePort();
  const args = peerLadderArgs({ listenUrl: `rtmp://127.0.0.1:${port}/app/peer`, rungs, preset, outDir });
  const peer = spawnTracked('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let peerStderr = '';
  peer.stderr?.setEncoding('utf8');
  peer.stderr?.on('data', (chunk: string) => {
    peerStderr = (peerStderr + chunk).slice(-2000);
  });
  const peerExited = new Promise<void>((resolve) => peer.once('exit', () => resolve()));
  let publisher: LivePublisher | null = null;
  let watcher: PlaylistWatcher | null = null;
  try {
    await waitUntilListening(port, 10_000);
    publisher = startLivePublisher({ inputPath: input.path, ingestUrl: `rtmp://127.0.0.1:${port}/app/peer` });
    const playlists = rungs.map((_, index) => peerPlaylistPath(outDir, index));
    const readPlaylist = (file: string) => Promise.resolve().then(() => readFileSync(file, 'utf8'));
    let playableMs: number | null = null;
    while (playableMs === null && Date.now() - publisher.startedAtMs < 30_000) {
      const first = await readPlaylist(playlists[0] ?? '').catch(() => '');
      if (parseMediaPlaylist(first).length > 0) playableMs = Date.now() - publisher.startedAtMs;
      else await sleep(50);
    }
    if (playableMs === null) throw new Error(`the peer listed no segment within 30 s: ${peerStderr.slice(-500)}`);
    watcher = new PlaylistWatcher(playlists, readPlaylist, 1_000);
    const peerPid = peer.pid ?? null;
    const measured = await measureWindow({
      startedAtMs: publisher.startedAtMs,
      runSeconds,
      windowSeconds,
      packagerPid: () => peerPid,
      serverPids: [],
      publisher,
      watcher,
      sources: playlists,
    });
    return {
      run: {
        side: 'peer',
        playableMs,
        windowSeconds: round(measured.wall, 1),
        packagerCpuPerSecond: measured.packager,
        serverCpuPerSecond: 0,
        totalCpuPerSecond: measured.packager,
        publisherCpuPerSecond: measured.publisher,
        minListedRate: measured.minListedRate,
        resolutions: variantResolutions(readFileSync(path.join(outDir, 'master.m3u8'), 'utf8')),
      },
      args: `ffmpeg ${args.join(' ').replaceAll(outDir, '<dir>')}`,
    };
  } finally {
    await watcher?.stop();
    await publisher?.stop();
    await Promise.race([peerExited, sleep(5_000)]);
    if (peer.pid !== undefined) killTreeSync(peer.pid);
    releaseDirectory(outDir);
  }
};

export const measureLiveCpu = async ({
  server,
  token,
  rtmpPort,
  input,
  preset,
  runSeconds,
  windowSeconds,
  serverIdleCpuPerSecond,
  log,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  rtmpPort: number;
  input: LiveInput;
  preset: string;
  serverIdleCpuPerSecond: number | null;
  runSeconds: number;
  windowSeconds: number;
  log: (line: string) => void;
}): Promise<LiveCpuComparison> => {
  // The ladder the runtime plans for this source (live-runtime.ts: at most two encoded rungs).
  const rungs = planLiveLadder(
    { video: { codec: 'h264', width: input.width, height: input.height }, audio: { codec: 'aac', sampleRate: 48_000, channels: 2 } },
    { maxEncodedRungs: 2, audioOnly: false },
  );
  log(`live cpu: ${input.label} through Keyframe (${runSeconds} s)…`);
  const keyframe = await keyframeRun({ server, token, rtmpPort, input, runSeconds, windowSeconds });
  log(`live cpu: ${input.label} Keyframe packager ${keyframe.packagerCpuPerSecond} + server ${keyframe.serverCpuPerSecond} CPU-s/s; now the plain ffmpeg peer…`);
  const { run: peer, args } = await peerRun({ input, rungs, preset, runSeconds, windowSeconds });
  log(`live cpu: ${input.label} peer ${peer.packagerCpuPerSecond} CPU-s/s`);
  return {
    input: input.label,
    rungs: rungs.map((rung) => rung.name),
    preset,
    keyframe,
    peer,
    totalVsPeer: ratio(keyframe.totalCpuPerSecond, peer.totalCpuPerSecond),
    packagerVsPeer: ratio(keyframe.packagerCpuPerSecond, peer.packagerCpuPerSecond),
    aboveIdleVsPeer:
      keyframe.totalCpuPerSecond === null || serverIdleCpuPerSecond === null ? null : ratio(keyframe.totalCpuPerSecond - serverIdleCpuPerSecond, peer.totalCpuPerSecond),
    serverIdleCpuPerSecond,
    peerArgs: args,
  };
};

/** The server's node processes' CPU seconds per second with no broadcast and no request: its floor. */
export const measureServerIdleCpu = async (server: KeyframeProcess, seconds: number): Promise<number | null> => {
  if (server.pid === undefined) return null;
  const pids = serverNodePids(server.pid);
  const total = () => pids.reduce((sum, pid) => sum + (cpuSecondsOf(pid) ?? 0), 0);
  const before = total();
  const startedAt = Date.now();
  await sleep(seconds * 1000);
  return perSecond(before, total(), (Date.now() - startedAt) / 1000);
};
