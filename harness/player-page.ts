import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

// A page that plays an HLS URL with hls.js (MSE) and records what a viewer would notice: when the
// first frame played, every stall after it, level switches, errors and how long each fragment
// took to load. Served from its own origin, so playback from Keyframe exercises CORS too. Used by
// the player e2e test and the benchmark's cold-playback phase (Chromium's flags: chromium.ts).

export type PlayerReport = {
  events: Array<Record<string, unknown>>;
  errors: Array<{ type: string; details: string; fatal: boolean; url: string | null; response: number | null }>;
  fatal: unknown;
  waitingAfterPlaying: number;
  bufferStalled: number;
  firstPlayingAt: number | null;
  levels: Array<{ width: number; height: number; bitrate: number; codecs: string }>;
  levelSwitches: Array<{ t: number; level: number }>;
  fragments: number;
  loads: Array<{ t: number; url: string; type: string; level: number; bytes: number; ttfbMs: number; totalMs: number }>;
  supported: boolean | null;
  nativeHls: string | null;
};

export const PLAYER_PAGE = `<!doctype html>
<html>
<head><meta charset="utf-8"><title>Keyframe hls.js check</title>
<style>body{margin:0;background:#111;color:#eee;font:14px sans-serif} video{width:960px;height:540px;background:#000;display:block}</style>
</head>
<body>
<video id="video" muted playsinline></video>
<pre id="log"></pre>
<script src="/hls.min.js"></script>
<script>
  window.report = { events: [], errors: [], fatal: null, waitingAfterPlaying: 0, bufferStalled: 0, firstPlayingAt: null, levels: [], levelSwitches: [], fragments: 0, loads: [], supported: null, nativeHls: null };
  const video = document.getElementById('video');
  const log = (entry) => { window.report.events.push({ t: Math.round(performance.now()), currentTime: video.currentTime, ...entry }); };
  window.startPlayback = (src) => {
    window.report.supported = Hls.isSupported();
    window.report.nativeHls = video.canPlayType('application/vnd.apple.mpegurl');
    if (!window.report.supported) return false;
    video.muted = true;
    for (const type of ['playing', 'waiting', 'stalled', 'error', 'ended', 'canplay']) {
      video.addEventListener(type, () => {
        log({ type });
        if (type === 'playing' && window.report.firstPlayingAt === null) window.report.firstPlayingAt = performance.now();
        if (type === 'waiting' && window.report.firstPlayingAt !== null) window.report.waitingAfterPlaying += 1;
      });
    }
    const hls = new Hls({ debug: false });
    window.hls = hls;
    hls.on(Hls.Events.ERROR, (_, data) => {
      const entry = { type: data.type, details: data.details, fatal: data.fatal, url: data.frag ? data.frag.url : (data.url || null), response: data.response ? data.response.code : null };
      window.report.errors.push(entry);
      log({ type: 'hls-error', ...entry });
      if (data.details === Hls.ErrorDetails.BUFFER_STALLED_ERROR) window.report.bufferStalled += 1;
      if (data.fatal && !window.report.fatal) window.report.fatal = entry;
    });
    hls.on(Hls.Events.MANIFEST_PARSED, (_, data) => {
      window.report.levels = data.levels.map((level) => ({ width: level.width, height: level.height, bitrate: level.bitrate, codecs: level.codecs }));
      video.play().catch((error) => log({ type: 'play-rejected', message: String(error) }));
    });
    hls.on(Hls.Events.LEVEL_SWITCHED, (_, data) => { window.report.levelSwitches.push({ t: Math.round(performance.now()), level: data.level }); });
    hls.on(Hls.Events.FRAG_BUFFERED, () => { window.report.fragments += 1; });
    hls.on(Hls.Events.FRAG_LOADED, (_, data) => {
      const loading = data.frag.stats.loading;
      window.report.loads.push({ t: Math.round(performance.now()), url: data.frag.url.split('/').slice(-2).join('/'), type: data.frag.type, level: data.frag.level, bytes: data.frag.stats.loaded, ttfbMs: Math.round(loading.first - loading.start), totalMs: Math.round(loading.end - loading.start) });
    });
    hls.loadSource(src);
    hls.attachMedia(video);
    return true;
  };
</script>
</body>
</html>`;

/** Serves the page at `/` and hls.js at `/hls.min.js` on 127.0.0.1. */
export const startPlayerPageServer = async (repoRoot: string): Promise<{ origin: string; close: () => Promise<void> }> => {
  const hlsJs = readFileSync(path.join(repoRoot, 'node_modules', 'hls.js', 'dist', 'hls.min.js'));
  const server = http.createServer((request, response) => {
    if (request.url === '/hls.min.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(hlsJs);
    } else if (request.url === '/' || request.url?.startsWith('/?')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PLAYER_PAGE);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
