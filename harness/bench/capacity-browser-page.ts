// The recorder added to the player page for the capacity curve's browser check
// (capacity-browser.ts): what it samples and reports, kept apart from the Node side that reads it.

/** The playhead not moving for this long (while playing) is a stall. */
export const STALL_MS = 250;
export const SAMPLE_MS = 100;

export type PageLoad = { t: number; type: string; level: number; sn: number | 'initSegment'; start: number; first: number; end: number; bytes: number };
export type PageError = {
  t: number;
  type: string;
  details: string;
  fatal: boolean;
  code: number | null;
  fragType: string | null;
  level: number | null;
  sn: number | 'initSegment' | null;
  action: number | null;
  nextAutoLevel: number | null;
};
/** `ahead`: seconds buffered ahead of the playhead when the request was made. */
export type PageRequest = { t: number; what: string; level: number | null; sn: number | 'initSegment' | null; ahead: number };
export type PageStall = { start: number; end: number | null; position: number; bufferedAhead: number };

/** What CHECK_SCRIPT records in a page (times: the page's performance.now()). */
export type PageCheck = {
  startedAt: number;
  startedEpochMs: number;
  supported: boolean;
  levels: Array<{ rung: string; height: number; bitrate: number }>;
  requests: PageRequest[];
  loads: PageLoad[];
  playlists: Array<{ kind: string; ms: number }>;
  errors: PageError[];
  switches: Array<{ t: number; level: number }>;
  aborts: Array<{ t: number; level: number; sn: number | 'initSegment' }>;
  firstPlayingAt: number | null;
  firstAdvanceAt: number | null;
  firstVideoBufferedAt: number | null;
  stalls: PageStall[];
  waiting: Array<{ start: number; end: number | null }>;
  endedAt: number | null;
  pausedSamples: number;
  hiddenSamples: number;
  samples: number;
  maxSampleGapMs: number;
  final: { at: number; currentTime: number; duration: number | null; ended: boolean; paused: boolean; visibility: string } | null;
};

// Plain JavaScript (a string, so that no compiler helper ends up in the page): added to the
// player page, it starts playback through the page's own startPlayback (hls.js default config,
// muted autoplay at MANIFEST_PARSED) and records what the check reports. After `wallMs` it stops
// loading and playback and freezes the record (`check.final`).
export const CHECK_SCRIPT = `
window.startCheck = (src, wallMs, stallMs, sampleMs) => {
  const startedAt = performance.now();
  const check = {
    startedAt, startedEpochMs: Date.now(), supported: false, levels: [], requests: [], loads: [], playlists: [], errors: [], switches: [], aborts: [],
    firstPlayingAt: null, firstAdvanceAt: null, firstVideoBufferedAt: null, stalls: [], waiting: [], endedAt: null, pausedSamples: 0, hiddenSamples: 0, samples: 0, maxSampleGapMs: 0, final: null,
  };
  window.check = check;
  const video = document.getElementById('video');
  let done = false;
  const bufferedAhead = () => {
    for (let i = 0; i < video.buffered.length; i++) {
      if (video.buffered.start(i) <= video.currentTime + 0.1 && video.buffered.end(i) >= video.currentTime) return video.buffered.end(i) - video.currentTime;
    }
    return 0;
  };
  const request = (what, level, sn) => { if (!done && check.requests.length < 400) check.requests.push({ t: performance.now(), what, level, sn, ahead: bufferedAhead() }); };
  const rungOf = (uri) => { try { return decodeURIComponent(new URL(uri).pathname.split('/').pop() || '').replace(/\\.m3u8$/, ''); } catch { return String(uri); } };
  let openWaiting = null;
  video.addEventListener('playing', () => {
    if (done) return;
    if (check.firstPlayingAt === null) check.firstPlayingAt = performance.now();
    if (openWaiting) { openWaiting.end = performance.now(); openWaiting = null; }
  });
  video.addEventListener('waiting', () => {
    if (done || check.firstPlayingAt === null || openWaiting) return;
    openWaiting = { start: performance.now(), end: null };
    check.waiting.push(openWaiting);
  });
  video.addEventListener('ended', () => { if (!done && check.endedAt === null) check.endedAt = performance.now(); });
  check.supported = window.startPlayback(src);
  const hls = window.hls;
  if (!check.supported || !hls) { check.final = { at: performance.now(), currentTime: 0, duration: null, ended: false, paused: true, visibility: document.visibilityState }; return check; }
  const E = Hls.Events;
  request('manifest', null, null);
  hls.on(E.MANIFEST_PARSED, (_, data) => { check.levels = data.levels.map((level) => ({ rung: rungOf(level.uri), height: level.height, bitrate: level.bitrate })); });
  hls.on(E.MANIFEST_LOADED, (_, data) => { check.playlists.push({ kind: 'manifest', ms: data.stats.loading.end - data.stats.loading.start }); });
  hls.on(E.LEVEL_LOADING, (_, data) => request('level', data.level, null));
  hls.on(E.LEVEL_LOADED, (_, data) => { if (!done) check.playlists.push({ kind: 'level', ms: data.stats.loading.end - data.stats.loading.start }); });
  hls.on(E.AUDIO_TRACK_LOADING, () => request('audio-track', null, null));
  hls.on(E.AUDIO_TRACK_LOADED, (_, data) => { if (!done) check.playlists.push({ kind: 'audio-track', ms: data.stats.loading.end - data.stats.loading.start }); });
  hls.on(E.FRAG_LOADING, (_, data) => request(data.frag.type, data.frag.level, data.frag.sn));
  hls.on(E.FRAG_LOADED, (_, data) => {
    if (done) return;
    const loading = data.frag.stats.loading;
    check.loads.push({ t: performance.now(), type: data.frag.type, level: data.frag.level, sn: data.frag.sn, start: loading.start, first: loading.first, end: loading.end, bytes: data.frag.stats.loaded });
  });
  hls.on(E.FRAG_LOAD_EMERGENCY_ABORTED, (_, data) => { if (!done) check.aborts.push({ t: performance.now(), level: data.frag.level, sn: data.frag.sn }); });
  hls.on(E.FRAG_BUFFERED, (_, data) => { if (!done && data.frag.type === 'main' && typeof data.frag.sn === 'number' && check.firstVideoBufferedAt === null) check.firstVideoBufferedAt = performance.now(); });
  hls.on(E.LEVEL_SWITCHED, (_, data) => { if (!done) check.switches.push({ t: performance.now(), level: data.level }); });
  hls.on(E.ERROR, (_, data) => {
    if (done) return;
    const action = data.errorAction || null;
    check.errors.push({
      t: performance.now(), type: String(data.type), details: String(data.details), fatal: Boolean(data.fatal),
      code: data.response && typeof data.response.code === 'number' ? data.response.code : null,
      fragType: data.frag ? data.frag.type : null,
      level: data.frag ? data.frag.level : (typeof data.level === 'number' ? data.level : null),
      sn: data.frag ? data.frag.sn : null,
      action: action && typeof action.action === 'number' ? action.action : null,
      nextAutoLevel: action && typeof action.nextAutoLevel === 'number' ? action.nextAutoLevel : null,
    });
  });
  let last = null;
  let lastAdvanceAt = null;
  let openStall = null;
  const sample = () => {
    if (done) return;
    const now = performance.now();
    check.samples++;
    if (last) check.maxSampleGapMs = Math.max(check.maxSampleGapMs, now - last.at);
    if (document.hidden) check.hiddenSamples++;
    const position = video.currentTime;
    if (check.firstAdvanceAt === null && position > 0) check.firstAdvanceAt = now;
    const started = check.firstPlayingAt !== null || check.firstAdvanceAt !== null;
    if (started && lastAdvanceAt === null) lastAdvanceAt = now;
    if (started) {
      const moved = last !== null && Math.abs(position - last.position) > 0.005;
      if (moved || video.ended) {
        lastAdvanceAt = now;
        if (openStall) { openStall.end = now; openStall = null; }
      } else if (video.paused) {
        check.pausedSamples++;
      } else if (!openStall && now - lastAdvanceAt >= stallMs) {
        openStall = { start: lastAdvanceAt, end: null, position, bufferedAhead: bufferedAhead() };
        check.stalls.push(openStall);
      }
    }
    last = { at: now, position };
  };
  const timer = setInterval(sample, sampleMs);
  setTimeout(() => {
    sample();
    const at = performance.now();
    done = true;
    clearInterval(timer);
    if (openStall) openStall.end = at;
    if (openWaiting) openWaiting.end = at;
    check.final = { at, currentTime: video.currentTime, duration: Number.isFinite(video.duration) ? video.duration : null, ended: video.ended, paused: video.paused, visibility: document.visibilityState };
    try { hls.stopLoad(); video.pause(); } catch {}
  }, wallMs);
  return check;
};
`;
