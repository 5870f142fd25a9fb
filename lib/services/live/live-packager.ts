import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { terminateThenKill } from '../../media/child-process-set';
import { Fmp4StreamSplitter } from '../../media/fmp4';
import type { LiveRung } from '../../media/live/live-ladder';
import { LiveSegmenter, type LiveSegmenterEvent } from '../../media/live/live-segmenter';
import { TailBuffer } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';

// One connection's packager: one ffmpeg reads the publisher from the local RTMP server (or draws
// the reconnect slate) and writes a fragmented MP4 per rung to its own pipe; here each pipe is
// split into fragments and grouped into parts and segments as they arrive. It ends when the
// publisher goes (ffmpeg sees the end of its input and flushes) or when stopped.

export type PackagerOutput = {
  onInit(rungIndex: number, init: Buffer): void;
  onEvents(rungIndex: number, events: LiveSegmenterEvent[]): void;
  /**
   * How far the packager has fallen behind real time since its first output, about once a
   * second: wall time minus media time written, both since the first progress report. Flat while
   * it keeps up; growing when the machine cannot encode the ladder in real time.
   */
  onDrift(seconds: number): void;
};

export type LivePackager = {
  stop(): void;
  /** The captions feed (transcode.speechFd): raw PCM for the recogniser, to be read or drained. */
  readonly speech: Readable | null;
  /** Resolves once ffmpeg has exited and every open segment was closed. */
  readonly done: Promise<{ exitCode: number | null; error: string | null }>;
};

const STOP_GRACE_MS = 3_000;

export const startLivePackager = ({
  ffmpegPath,
  transcode,
  redact,
  rungs,
  segmentSeconds,
  firstMsn,
  stopGraceMs = STOP_GRACE_MS,
  output,
  log,
}: {
  ffmpegPath: string;
  /** The packager's ffmpeg: liveTranscodeArgs for a publisher, liveSlateArgs for a slate. */
  transcode: { args: string[]; outputFds: number[]; speechFd?: number };
  /** A secret the arguments hold (the stream key in the input URL), kept out of logs and errors. */
  redact: string | null;
  rungs: LiveRung[];
  segmentSeconds: number;
  firstMsn: number;
  /** How long stop() lets ffmpeg flush before it is killed. */
  stopGraceMs?: number;
  output: PackagerOutput;
  log: Logger;
}): LivePackager => {
  const { args, outputFds, speechFd } = transcode;
  const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'pipe', 'pipe'];
  for (let fd = 3; fd <= Math.max(...outputFds, speechFd ?? 0); fd += 1) stdio.push('pipe');
  const child = spawn(ffmpegPath, args, { stdio, detached: true });
  childProcesses().track(child);
  const stderr = new TailBuffer(8 * 1024);
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  let firstProgress: { wallMs: number; mediaUs: number } | null = null;
  let progressText = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    progressText = (progressText + chunk.toString('latin1')).slice(-4096);
    for (;;) {
      const end = progressText.indexOf('progress=');
      const blockEnd = end === -1 ? -1 : progressText.indexOf('\n', end);
      if (blockEnd === -1) break;
      const outTime = /out_time_us=(\d+)/.exec(progressText.slice(0, blockEnd));
      progressText = progressText.slice(blockEnd + 1);
      if (!outTime?.[1]) continue;
      const now = { wallMs: Date.now(), mediaUs: Number(outTime[1]) };
      firstProgress ??= now;
      output.onDrift((now.wallMs - firstProgress.wallMs) / 1000 - (now.mediaUs - firstProgress.mediaUs) / 1e6);
    }
  });

  let failure: string | null = null;
  const pipesDone = outputFds.map(
    (fd, rungIndex) =>
      new Promise<void>((resolve) => {
        const pipe = child.stdio[fd] as Readable | null;
        if (!pipe) {
          resolve();
          return;
        }
        let segmenter: LiveSegmenter | null = null;
        const splitter = new Fmp4StreamSplitter({
          onInit: (init) => {
            output.onInit(rungIndex, init);
            segmenter = new LiveSegmenter({ init, targetSegmentSeconds: segmentSeconds, firstMsn });
          },
          onFragment: (fragment) => {
            if (segmenter) output.onEvents(rungIndex, segmenter.push(fragment));
          },
        });
        pipe.on('data', (chunk: Buffer) => {
          if (failure) return;
          try {
            splitter.push(chunk);
          } catch (error) {
            failure = `rung ${rungs[rungIndex]?.name}: ${(error as Error).message}`;
            child.kill('SIGKILL');
          }
        });
        pipe.once('close', () => {
          if (segmenter && !failure) {
            try {
              output.onEvents(rungIndex, segmenter.finish());
            } catch (error) {
              failure = (error as Error).message;
            }
          }
          resolve();
        });
      }),
  );

  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (error) => {
      failure = error.message;
      resolve(null);
    });
  });
  const done = Promise.all([exited, ...pipesDone]).then(([exitCode]) => {
    // ffmpeg names its input in errors, and a publisher's input URL carries the stream key.
    const tail = redact ? stderr.toString().trim().replaceAll(redact, '<stream key>') : stderr.toString().trim();
    // 255: ffmpeg stopped by a signal, or its input closed when the publisher left — the normal ends.
    const normalEnd = exitCode === 0 || exitCode === 255;
    if (!normalEnd && !failure && tail) log.warn({ exitCode, stderr: tail.slice(-1000) }, 'live packager ended with an error');
    return { exitCode, error: failure ?? (normalEnd ? null : tail.slice(-500) || `ffmpeg exited with ${exitCode}`) };
  });

  return {
    done,
    speech: speechFd === undefined ? null : ((child.stdio[speechFd] as Readable | null) ?? null),
    // SIGTERM lets ffmpeg flush its last fragments; a packager that does not go is killed.
    stop: () => terminateThenKill(child, stopGraceMs),
  };
};
