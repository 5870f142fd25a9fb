import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from '@playwright/test';
import type { Api, Json } from './api';
import { acquireCpuLock, type CpuLockMode } from './cpu-lock';
import { httpGet, parseMultivariant, renditionName, type MultivariantPlaylist, type Variant } from './hls';
import type { KeyframeServer } from './keyframe-server';
import { writeVideoRotation } from './media-probe';
import { MediaServer } from '../../harness/media-server';
import { SHARED_MEDIA_DIR } from './paths';
import { test as base } from './test';

// Shared pieces of the playback specs: lavfi fixtures made at test time (once per run, shared by
// the workers), a media server that serves them, the CPU lock fixture, and asset/playlist helpers.

const run = promisify(execFile);
const FFMPEG = process.env.E2E_FFMPEG ?? 'ffmpeg';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const lavfi = (...args: string[]) => ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args];
const x264 = (preset = 'veryfast') => ['-c:v', 'libx264', '-preset', preset, '-pix_fmt', 'yuv420p'];
const aacStereo = ['-c:a', 'aac', '-ac', '2', '-b:a', '128k'];
const testsrc2 = (size: string, seconds: number, rate = 30) => ['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=${rate}:duration=${seconds}`];
const sine = (seconds: number, frequency = 440) => ['-f', 'lavfi', '-i', `sine=frequency=${frequency}:sample_rate=48000:duration=${seconds}`];

function cbr360p40sArgs(movflags: string[]): string[] {
  return [
    ...testsrc2('640x360', 40), ...sine(40),
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', '60',
    '-b:v', '10M', '-minrate', '10M', '-maxrate', '10M', '-bufsize', '2M', '-x264-params', 'nal-hrd=cbr',
    ...aacStereo, ...movflags,
  ];
}

type FixtureRecipe = { file: string; why: string; make: (target: string) => Promise<void> };

const ffmpegTo = (args: string[]) => async (target: string) => {
  await run(FFMPEG, lavfi(...args, target), { maxBuffer: 16 * 1024 * 1024 });
};

export const PLAYBACK_FIXTURES = {
  landscape1080p: {
    file: 'pb_testsrc2_1920x1080_30fps_sine_10s.mp4',
    why: '1920x1080 30 fps H.264 + AAC stereo 48 kHz, 10 s',
    make: ffmpegTo([...testsrc2('1920x1080', 10), ...sine(10), ...x264(), ...aacStereo, '-movflags', '+faststart']),
  },
  landscape1080p6s: {
    file: 'pb_testsrc2_1920x1080_30fps_sine_6s.mp4',
    why: '1920x1080 30 fps H.264 + AAC stereo 48 kHz, 6 s: three segments of every rung, for specs that encode the whole 1080p ladder',
    make: ffmpegTo([...testsrc2('1920x1080', 6), ...sine(6), ...x264(), ...aacStereo, '-movflags', '+faststart']),
  },
  uhd2160p: {
    file: 'pb_testsrc2_3840x2160_30fps_sine_3s.mp4',
    why: '3840x2160 30 fps H.264 + AAC, 3 s',
    make: ffmpegTo([...testsrc2('3840x2160', 3), ...sine(3), ...x264('ultrafast'), ...aacStereo, '-movflags', '+faststart']),
  },
  portraitRot90: {
    file: 'pb_testsrc2_1280x720_rotate90_sine_5s.mp4',
    why: 'coded 1280x720 with a rotate=90 display matrix (displays 720x1280), 5 s',
    make: async (target: string) => {
      await ffmpegTo([
        ...testsrc2('1280x720', 5), ...sine(5), ...x264(), ...aacStereo,
        '-metadata:s:v:0', 'rotate=90', '-movflags', '+faststart',
      ])(target);
      // ffmpeg 5.1 drops the rotate tag when muxing: write the display matrix ourselves.
      await writeVideoRotation(target, 90);
    },
  },
  vfr: {
    file: 'pb_vfr_1280x720_30then15fps_sine_6s.mp4',
    why: 'VFR: 3 s at 30 fps then 3 s at 15 fps (-fps_mode vfr), AAC, 6 s',
    make: ffmpegTo([
      ...testsrc2('1280x720', 3, 30), ...testsrc2('1280x720', 3, 15), ...sine(6),
      '-filter_complex', '[0:v][1:v]concat=n=2:v=1:a=0[v]', '-map', '[v]', '-map', '2:a',
      '-fps_mode', 'vfr', '-video_track_timescale', '90000', ...x264(), ...aacStereo, '-movflags', '+faststart',
    ]),
  },
  odd853x479: {
    file: 'pb_testsrc_853x479_yuv444_sine_4s.mp4',
    why: 'odd size 853x479 (H.264 4:4:4, the only way x264 takes odd sizes), AAC, 4 s',
    make: ffmpegTo([
      '-f', 'lavfi', '-i', 'testsrc=size=853x479:rate=30:duration=4', ...sine(4),
      '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv444p', ...aacStereo, '-movflags', '+faststart',
    ]),
  },
  audioOnly: {
    file: 'pb_sine_aac_stereo_48k_10s.m4a',
    why: 'AAC stereo 48 kHz in M4A, no video, 10 s',
    make: ffmpegTo([...sine(10, 523), ...aacStereo]),
  },
  videoOnly: {
    file: 'pb_testsrc2_1280x720_30fps_noaudio_6s.mp4',
    why: '1280x720 30 fps H.264, no audio track, 6 s',
    make: ffmpegTo([...testsrc2('1280x720', 6), ...x264(), '-an', '-movflags', '+faststart']),
  },
  landscape720p: {
    file: 'pb_testsrc2_1280x720_30fps_sine_10s.mp4',
    why: '1280x720 30 fps H.264 + AAC stereo 48 kHz, 10 s: four rungs (veryfast and superfast), four segments',
    make: ffmpegTo([...testsrc2('1280x720', 10), ...sine(10), ...x264(), ...aacStereo, '-movflags', '+faststart']),
  },
  continuity720p: {
    file: 'pb_testsrc2_1280x720_30fps_sine_16s.mp4',
    why: '1280x720 30 fps + 440 Hz sine AAC stereo 48 kHz, 16 s',
    make: ffmpegTo([...testsrc2('1280x720', 16), ...sine(16), ...x264(), ...aacStereo, '-movflags', '+faststart']),
  },
  long1080p: {
    file: 'pb_testsrc2_1920x1080_30fps_sine_30s.mp4',
    why: '1920x1080 30 fps H.264 + AAC stereo, 30 s (9 segments)',
    make: ffmpegTo([...testsrc2('1920x1080', 30), ...sine(30), ...x264(), ...aacStereo, '-movflags', '+faststart']),
  },
  lowres40s: {
    file: 'pb_testsrc2_640x360_30fps_sine_40s.mp4',
    why: '640x360 30 fps H.264 + AAC stereo, 40 s: long enough to play 20 s with a seek, cheap to encode',
    make: ffmpegTo([...testsrc2('640x360', 40), ...sine(40), ...x264(), ...aacStereo, '-movflags', '+faststart']),
  },
  slides1080p20s: {
    file: 'pb_testsrc_1920x1080_slide_every_3s_sine_20s.mp4',
    why: '1920x1080 30 fps, a still picture changing every 3 s (a slide deck or screen recording), AAC, 20 s: easy content, far below its rungs\' nominal bitrates',
    make: ffmpegTo([
      '-f', 'lavfi', '-i', 'testsrc=size=1920x1080:rate=1/3,fps=30', ...sine(20), '-t', '20',
      ...x264(), '-crf', '14', ...aacStereo, '-movflags', '+faststart',
    ]),
  },
  grain720p20s: {
    file: 'pb_testsrc2_1280x720_noise_sine_20s.mp4',
    why: '1280x720 30 fps with temporal noise (grain, a camera), AAC, 20 s: hard content, near its rungs\' caps',
    make: ffmpegTo([
      '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30,noise=alls=8:allf=t', ...sine(20), '-t', '20',
      ...x264(), '-crf', '14', ...aacStereo, '-movflags', '+faststart',
    ]),
  },
  cbr360p40s: {
    file: 'pb_testsrc2_640x360_cbr10m_sine_40s.mp4',
    why: '640x360 30 fps H.264 at a constant 10 Mb/s (about 50 MB), 2 s GOPs, AAC, 40 s, faststart: big enough for a throttled download to outlast the ingest',
    make: ffmpegTo(cbr360p40sArgs(['-movflags', '+faststart'])),
  },
  cbr360p40sIndexLast: {
    file: 'pb_testsrc2_640x360_cbr10m_sine_40s_moov_last.mp4',
    why: 'the same as cbr360p40s with its index (moov) after the media data, as cameras and phones write it',
    make: ffmpegTo(cbr360p40sArgs([])),
  },
} satisfies Record<string, FixtureRecipe>;

export type PlaybackFixtureName = keyof typeof PLAYBACK_FIXTURES;

export type PlaybackFixtures = {
  dir: string;
  /** Generates the fixture if needed (once per run across workers) and returns its path. */
  ensure: (name: PlaybackFixtureName) => Promise<string>;
  file: (name: PlaybackFixtureName) => string;
};

const generated = new Map<string, Promise<string>>();

const ensureFixtureFile = (dir: string, recipe: FixtureRecipe): Promise<string> => {
  const target = path.join(dir, recipe.file);
  let pending = generated.get(target);
  if (!pending) {
    pending = (async () => {
      const lock = `${target}.lock`;
      const deadline = Date.now() + 180_000;
      while (!existsSync(target)) {
        let handle;
        try {
          handle = await open(lock, 'wx');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          // Another worker is generating it; take over if it seems to have died.
          const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
          if (age > 120_000 || Date.now() > deadline) await rm(lock, { force: true });
          await sleep(250);
          continue;
        }
        try {
          await handle.close();
          const tmp = `${target}.tmp-${process.pid}${path.extname(target)}`;
          await recipe.make(tmp);
          await rename(tmp, target);
        } finally {
          await rm(lock, { force: true });
        }
      }
      return target;
    })();
    generated.set(target, pending);
    pending.catch(() => generated.delete(target));
  }
  return pending;
};

export const playbackFixturesIn = (dir: string): PlaybackFixtures => {
  mkdirSync(dir, { recursive: true });
  return {
    dir,
    ensure: (name) => ensureFixtureFile(dir, PLAYBACK_FIXTURES[name]),
    file: (name) => PLAYBACK_FIXTURES[name].file,
  };
};

type PlaybackTestFixtures = {
  /** How this test uses the cross-worker CPU lock (see cpu-lock.ts). */
  cpuLock: CpuLockMode;
  cpuSlot: void;
};

type PlaybackWorkerFixtures = {
  playbackFixtures: PlaybackFixtures;
  /** Serves the playback fixtures, the generated API fixtures and ../shared/media by file name. */
  playbackMedia: MediaServer;
};

export const test = base.extend<PlaybackTestFixtures, PlaybackWorkerFixtures>({
  cpuLock: ['shared', { option: true }],
  cpuSlot: [
    async ({ cpuLock }, use, testInfo) => {
      const started = Date.now();
      const release = await acquireCpuLock(cpuLock);
      const waited = Date.now() - started;
      if (waited > 1_000) {
        testInfo.annotations.push({ type: 'cpu-lock', description: `waited ${Math.round(waited / 1000)} s for the ${cpuLock} CPU lock` });
        if (testInfo.timeout > 0) testInfo.setTimeout(testInfo.timeout + waited);
      }
      try {
        await use();
      } finally {
        release();
      }
    },
    { auto: true },
  ],
  playbackFixtures: [
    async ({ fixtures }, use) => {
      await use(playbackFixturesIn(path.join(fixtures.dir, 'playback')));
    },
    { scope: 'worker' },
  ],
  playbackMedia: [
    async ({ fixtures, playbackFixtures }, use) => {
      const media = await MediaServer.start({ roots: [playbackFixtures.dir, fixtures.dir, SHARED_MEDIA_DIR] });
      await use(media);
      await media.close();
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';

// --- assets and playlists ---

export type PlayableAsset = { asset: Json; assetId: string; playbackId: string };

/** Creates an asset with a public playback ID and waits until it is `ready`. */
export const createPlayableAsset = async (api: Api, inputUrl: string, settings: Record<string, unknown> = {}): Promise<PlayableAsset> => {
  const created = await api.createAsset({ inputs: [{ url: inputUrl }], playback_policies: ['public'], ...settings });
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 120_000);
  expect(asset.status, `asset from ${inputUrl} should become ready: ${JSON.stringify(asset.errors)}`).toBe('ready');
  const playbackId = asset.playback_ids?.find((entry: Json) => entry.policy === 'public')?.id as string | undefined;
  expect(playbackId, JSON.stringify(asset.playback_ids)).toBeTruthy();
  return { asset, assetId: asset.id, playbackId: playbackId! };
};

export const multivariantUrl = (server: KeyframeServer, playbackId: string, query = ''): string =>
  server.url(`/${playbackId}.m3u8${query ? `?${query}` : ''}`);

export type NamedVariant = Variant & { name: string };

export type LoadedMultivariant = MultivariantPlaylist & { url: string; video: NamedVariant[]; audioOnly: NamedVariant[] };

/** Fetches and parses a multivariant playlist, asserting a 200. */
export const loadMultivariant = async (url: string): Promise<LoadedMultivariant> => {
  const response = await httpGet(url);
  expect(response.status, `GET ${url}: ${response.text.slice(0, 500)}`).toBe(200);
  const playlist = parseMultivariant(response.text, url);
  const named = playlist.variants.map((variant) => ({ ...variant, name: renditionName(variant.uri) }));
  return {
    ...playlist,
    url,
    video: named.filter((variant) => variant.name !== 'audio'),
    audioOnly: named.filter((variant) => variant.name === 'audio'),
  };
};

/** Polls the multivariant playlist until `done(playlist)` or the timeout; returns the last one. */
export const pollMultivariant = async (
  url: string,
  done: (playlist: LoadedMultivariant) => boolean,
  { timeoutMs = 120_000, intervalMs = 2_000 } = {},
): Promise<LoadedMultivariant> => {
  const deadline = Date.now() + timeoutMs;
  let playlist = await loadMultivariant(url);
  while (!done(playlist) && Date.now() < deadline) {
    await sleep(intervalMs);
    playlist = await loadMultivariant(url);
  }
  return playlist;
};
