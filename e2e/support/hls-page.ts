import path from 'node:path';
import type { Page } from '@playwright/test';
import { REPO_ROOT } from '../../harness/paths';

// hls.js playback inside any page a spec controls: inject hls.js, play a multivariant playlist in
// a muted <video>, and read back how far playback got (position, decoded frames, hls.js errors).
// For pages that are not built around a player (e.g. an uploader), unlike the dedicated page in
// playback/player.spec.ts.

export const HLS_JS_PATH = path.join(REPO_ROOT, 'node_modules', 'hls.js', 'dist', 'hls.min.js');

export type HlsPlaybackState = {
  currentTime: number;
  /** Frames the decoder produced (VideoPlaybackQuality.totalVideoFrames). */
  decodedFrames: number;
  droppedFrames: number;
  fatal: { type: string; details: string } | null;
  errors: Array<{ type: string; details: string; fatal: boolean }>;
  levels: number;
};

type PlayerWindow = Window & {
  Hls: {
    isSupported(): boolean;
    Events: Record<string, string>;
    new (config?: Record<string, unknown>): {
      on(event: string, handler: (event: string, data: Record<string, unknown>) => void): void;
      loadSource(url: string): void;
      attachMedia(media: HTMLMediaElement): void;
    };
  };
  __hlsPlayback?: { errors: HlsPlaybackState['errors']; fatal: HlsPlaybackState['fatal']; levels: number };
};

/** Injects hls.js (no network request), adds a muted <video> and starts playing `src`. */
export const startHlsPlayback = async (page: Page, src: string): Promise<void> => {
  await page.addScriptTag({ path: HLS_JS_PATH });
  const supported = await page.evaluate((url) => {
    const win = window as unknown as PlayerWindow;
    if (!win.Hls.isSupported()) return false;
    const video = document.createElement('video');
    video.id = 'hls-playback';
    video.muted = true;
    video.playsInline = true;
    video.style.width = '640px';
    document.body.append(video);
    const state: NonNullable<PlayerWindow['__hlsPlayback']> = { errors: [], fatal: null, levels: 0 };
    win.__hlsPlayback = state;
    const hls = new win.Hls();
    hls.on(win.Hls.Events.ERROR!, (_event, data) => {
      const entry = { type: String(data.type), details: String(data.details), fatal: Boolean(data.fatal) };
      state.errors.push(entry);
      if (entry.fatal && !state.fatal) state.fatal = { type: entry.type, details: entry.details };
    });
    hls.on(win.Hls.Events.MANIFEST_PARSED!, (_event, data) => {
      state.levels = Array.isArray(data.levels) ? data.levels.length : 0;
      void video.play().catch(() => undefined);
    });
    hls.loadSource(url);
    hls.attachMedia(video);
    return true;
  }, src);
  if (!supported) throw new Error('hls.js reports no MSE support in this browser');
};

export const readHlsPlayback = (page: Page): Promise<HlsPlaybackState> =>
  page.evaluate(() => {
    const win = window as unknown as PlayerWindow;
    const video = document.getElementById('hls-playback') as HTMLVideoElement;
    const quality = video.getVideoPlaybackQuality();
    const state = win.__hlsPlayback ?? { errors: [], fatal: null, levels: 0 };
    return {
      currentTime: video.currentTime,
      decodedFrames: quality.totalVideoFrames,
      droppedFrames: quality.droppedVideoFrames,
      fatal: state.fatal,
      errors: state.errors,
      levels: state.levels,
    };
  });

/** Polls until playback reached `minSeconds`, a fatal hls.js error, or the timeout; returns the last state. */
export const waitForHlsPlayback = async (
  page: Page,
  { minSeconds, timeoutMs = 60_000 }: { minSeconds: number; timeoutMs?: number },
): Promise<HlsPlaybackState> => {
  const deadline = Date.now() + timeoutMs;
  let state = await readHlsPlayback(page);
  while (state.currentTime < minSeconds && !state.fatal && Date.now() < deadline) {
    await page.waitForTimeout(250);
    state = await readHlsPlayback(page);
  }
  return state;
};
