import type Mux from '@mux/mux-node';
import { expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { httpGet } from './hls';
import { decodeSegment } from './jit';
import { HLS_JS_PATH } from './hls-page';
import { getFreePort, type KeyframeServer } from './keyframe-server';
import { startKeyframe } from './test';

// Live streaming specs: a server with RTMP ingest on a port of its own, playlist polling, and
// hls.js playing a live stream in the page with its own view of latency and stalls.

export type LiveServer = { server: KeyframeServer; rtmpPort: number; rtmpUrl: (streamKey: string) => string };

export const startLiveKeyframe = async (label: string, env: Record<string, string> = {}): Promise<LiveServer> => {
  const rtmpPort = await getFreePort();
  const server = await startKeyframe({ label, env: { RTMP_PORT: String(rtmpPort), ...env } });
  return { server, rtmpPort, rtmpUrl: (streamKey) => `rtmp://127.0.0.1:${rtmpPort}/app/${streamKey}` };
};

/** A live server with RTMPS ingest too, on a port of its own. */
export const startLiveKeyframeWithRtmps = async (label: string, env: Record<string, string> = {}): Promise<LiveServer & { rtmpsPort: number; rtmpsUrl: (streamKey: string) => string }> => {
  const rtmpsPort = await getFreePort();
  const live = await startLiveKeyframe(label, { RTMPS_PORT: String(rtmpsPort), ...env });
  return { ...live, rtmpsPort, rtmpsUrl: (streamKey) => `rtmps://127.0.0.1:${rtmpsPort}/app/${streamKey}` };
};

/** A live server with SRT ingest too, on a UDP port of its own. */
export const startLiveKeyframeWithSrt = async (label: string, env: Record<string, string> = {}): Promise<LiveServer & { srtPort: number; srtUrl: (streamId: string, passphrase?: string) => string }> => {
  const srtPort = await getFreePort();
  const live = await startLiveKeyframe(label, { SRT_PORT: String(srtPort), ...env });
  // As an operator types it: ffmpeg passes `streamid` to libsrt without percent-decoding it.
  const srtUrl = (streamId: string, passphrase?: string) => `srt://127.0.0.1:${srtPort}?streamid=${streamId}${passphrase === undefined ? '' : `&passphrase=${passphrase}`}`;
  return { ...live, srtPort, srtUrl };
};

/** Polls the live stream through the API until it has `status` (30 s at most); returns what it last saw. */
export const waitForLiveStreamStatus = async (mux: Mux, id: string, status: string): Promise<Mux.Video.LiveStream> => {
  const deadline = Date.now() + 30_000;
  let seen = await mux.video.liveStreams.retrieve(id);
  while (seen.status !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    seen = await mux.video.liveStreams.retrieve(id);
  }
  return seen;
};

/**
 * Waits for the live multivariant playlist and its first variant's first segment, then decodes
 * that segment behind its init segment with ffmpeg: no error, at least one frame.
 */
export const expectFirstLiveSegmentDecodes = async (multivariantUrl: string, outputDir: string, label: string): Promise<void> => {
  const multivariant = await waitForPlaylist(multivariantUrl, undefined, 30_000);
  const variantUrl = firstVariantUrl(multivariantUrl, multivariant);
  const media = await waitForPlaylist(variantUrl, (text) => /^#EXTINF/m.test(text), 30_000);
  const map = /#EXT-X-MAP:URI="([^"]+)"/.exec(media)?.[1];
  const firstSegment = media.split('\n').find((line) => line.length > 0 && !line.startsWith('#'));
  expect(map && firstSegment, media).toBeTruthy();
  const [init, segment] = await Promise.all([httpGet(new URL(map!, variantUrl).href), httpGet(new URL(firstSegment!, variantUrl).href)]);
  expect([init.status, segment.status]).toEqual([200, 200]);
  mkdirSync(outputDir, { recursive: true });
  const decoded = await decodeSegment(outputDir, init.body, segment.body, label);
  expect(decoded.stderr.trim(), 'the live segment decodes').toBe('');
  expect(decoded.frames).toBeGreaterThan(0);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 200 with a body `accept` likes; returns that body. */
export const waitForPlaylist = async (url: string, accept: (text: string) => boolean = () => true, timeoutMs = 30_000): Promise<string> => {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const response = await fetch(url);
    const text = await response.text();
    if (response.status === 200 && accept(text)) return text;
    last = `${response.status}: ${text.slice(0, 300)}`;
    await sleep(250);
  }
  throw new Error(`${url} did not become what was expected within ${timeoutMs} ms (last ${last})`);
};

/** The media playlist URL of the first variant of a multivariant playlist at `multivariantUrl`. */
export const firstVariantUrl = (multivariantUrl: string, multivariant: string): string => {
  const uri = multivariant.split('\n').find((line) => line && !line.startsWith('#'));
  if (!uri) throw new Error(`no variant in ${multivariant}`);
  return new URL(uri, multivariantUrl).toString();
};

export type LivePlayerState = {
  currentTime: number;
  /** hls.js's estimate of the distance to the live edge. */
  latency: number | null;
  /** Wall clock (ms) of the frame on screen, from EXT-X-PROGRAM-DATE-TIME. */
  playingDateMs: number | null;
  /** `waiting` events after playback started: stalls. */
  stalls: number;
  lowLatencyParts: boolean;
  fatal: string | null;
  errors: string[];
};

type LiveWindow = Window & {
  Hls: new (config?: Record<string, unknown>) => {
    on(event: string, handler: (event: string, data: Record<string, unknown>) => void): void;
    loadSource(url: string): void;
    attachMedia(media: HTMLMediaElement): void;
    latency: number;
    playingDate: Date | null;
  } & { Events?: never };
  __live?: { state: Omit<LivePlayerState, 'currentTime' | 'latency' | 'playingDateMs'>; hls: { latency: number; playingDate: Date | null } };
};

/**
 * hls.js with its default configuration (lowLatencyMode on), or these `config` changes, playing
 * `src` muted; cues hls.js parses itself (`renderTextTracksNatively: false`) are kept as their text.
 */
export const startLivePlayer = async (page: Page, src: string, config: Record<string, unknown> = {}): Promise<void> => {
  await page.addScriptTag({ path: HLS_JS_PATH });
  await page.evaluate(({ url, config }) => {
    const win = window as unknown as LiveWindow & { Hls: { Events: Record<string, string> } };
    const video = document.createElement('video');
    video.id = 'live';
    video.muted = true;
    video.playsInline = true;
    document.body.append(video);
    const state = { stalls: 0, lowLatencyParts: false, fatal: null as string | null, errors: [] as string[] };
    const hls = new win.Hls(config);
    win.__live = { state, hls };
    const parsedCues: Array<{ start: number; text: string }> = [];
    (win as unknown as { __parsedCues: typeof parsedCues }).__parsedCues = parsedCues;
    hls.on(win.Hls.Events.CUES_PARSED!, (_event, data) => {
      for (const cue of data.cues as Array<{ startTime: number; text: string }>) parsedCues.push({ start: cue.startTime, text: cue.text });
    });
    let started = false;
    video.addEventListener('playing', () => {
      started = true;
    });
    video.addEventListener('waiting', () => {
      if (started) state.stalls += 1;
    });
    hls.on(win.Hls.Events.ERROR!, (_event, data) => {
      const text = `${String(data.type)}/${String(data.details)}${data.fatal ? ' (fatal)' : ''}`;
      state.errors.push(text);
      if (data.fatal && !state.fatal) state.fatal = text;
    });
    hls.on(win.Hls.Events.LEVEL_LOADED!, (_event, data) => {
      const details = data.details as { partList?: unknown[] | null } | undefined;
      if (details?.partList && details.partList.length > 0) state.lowLatencyParts = true;
    });
    hls.on(win.Hls.Events.MANIFEST_PARSED!, () => void video.play().catch(() => undefined));
    hls.loadSource(url);
    hls.attachMedia(video);
  }, { url: src, config });
};

/** The cues hls.js parsed so far (with `renderTextTracksNatively: false`). */
export const liveParsedCues = (page: Page): Promise<Array<{ start: number; text: string }>> =>
  page.evaluate(() => (window as unknown as { __parsedCues: Array<{ start: number; text: string }> }).__parsedCues);

export const livePlayerState = (page: Page): Promise<LivePlayerState> =>
  page.evaluate(() => {
    const win = window as unknown as LiveWindow;
    const video = document.getElementById('live') as HTMLVideoElement;
    const live = win.__live!;
    return {
      ...live.state,
      currentTime: video.currentTime,
      latency: Number.isFinite(live.hls.latency) ? live.hls.latency : null,
      playingDateMs: live.hls.playingDate ? live.hls.playingDate.getTime() : null,
    };
  });

/** Every EXT-X-PROGRAM-DATE-TIME of a playlist, in ms. */
export const programDateTimes = (playlist: string): number[] =>
  [...playlist.matchAll(/^#EXT-X-PROGRAM-DATE-TIME:(.+)$/gm)].map((match) => Date.parse(match[1]!));

export const segmentDurations = (playlist: string): number[] => [...playlist.matchAll(/^#EXTINF:([\d.]+),/gm)].map((match) => Number(match[1]));

export type { KeyframeServer };
