import { expect } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';

// ffmpeg as a live publisher, as OBS or a hardware encoder would be: a real-time (`-re`) lavfi
// test pattern whose burned-in timestamp is the media clock, a 440 Hz tone, H.264 + AAC in FLV
// over RTMP(S), or in MPEG-TS over SRT.

export type Publisher = {
  readonly process: ChildProcess;
  /** Wall clock when ffmpeg was started (its media clock starts at 0 then). */
  readonly startedAtMs: number;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  stderr(): string;
  /** SIGINT (ffmpeg finishes the FLV stream cleanly), then SIGKILL if it lingers. */
  stop(): Promise<void>;
  /** Drops the connection the way a crashed encoder does. */
  kill(): Promise<void>;
};

export type PublishOptions = {
  /** rtmp://, rtmps:// or srt:// (MPEG-TS, as SRT encoders send). */
  ingestUrl: string;
  width?: number;
  height?: number;
  frameRate?: number;
  /** Keyframe interval in seconds (the source rendition can only be cut there). */
  keyframeSeconds?: number;
  /** Stop by itself after this many seconds. */
  seconds?: number;
  videoCodec?: string;
  audioCodec?: string;
};

export const publishTestPattern = ({
  ingestUrl,
  width = 640,
  height = 360,
  frameRate = 30,
  keyframeSeconds = 1,
  seconds,
  videoCodec = 'libx264',
  audioCodec = 'aac',
}: PublishOptions): Publisher => {
  const args = [
    '-hide_banner',
    '-loglevel',
    'warning',
    '-re',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=${width}x${height}:rate=${frameRate}`,
    '-re',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=48000',
    ...(seconds !== undefined ? ['-t', String(seconds)] : []),
    '-c:v',
    videoCodec,
    ...(videoCodec === 'libx264' ? ['-preset', 'veryfast', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p', '-g', String(Math.round(frameRate * keyframeSeconds)), '-keyint_min', String(Math.round(frameRate * keyframeSeconds)), '-sc_threshold', '0', '-b:v', '1500k'] : []),
    '-c:a',
    audioCodec,
    '-b:a',
    '128k',
    '-f',
    ingestUrl.startsWith('srt:') ? 'mpegts' : 'flv',
    ingestUrl,
  ];
  const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitOrKill = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return {
    process: child,
    startedAtMs: Date.now(),
    exited,
    stderr: () => stderr,
    stop: () => waitOrKill('SIGINT'),
    kill: () => waitOrKill('SIGKILL'),
  };
};

/** The publisher is refused at connect: ffmpeg exits with an error within 15 s (killed and failed if it is still running). */
export const expectPublisherRefused = async (publisher: Publisher, what: string): Promise<void> => {
  const code = await Promise.race([publisher.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 15_000))]);
  if (code === 'running') await publisher.kill();
  expect(code, `${what}: the publisher is refused (ffmpeg: ${publisher.stderr().slice(-300)})`).not.toBe('running');
  expect(code, what).not.toBe(0);
};
