import http from 'node:http';
import { request } from './http';
import { parseMultivariant } from './hls-playlists';
import { sleep } from './stats';
import {
  audioSegmentsFor,
  DEFAULT_ABR,
  DEFAULT_PACING,
  msUntilNextFetch,
  nextRungIndex,
  PlaybackTimeline,
  timedSegments,
  type AbrThresholds,
  type PacingPolicy,
  type TimedSegment,
} from './viewer-model';

// A player without a browser, for load: it fetches what hls.js would, in the same order, and keeps
// the buffer with the rules of viewer-model.ts. The multivariant playlist, then the first-listed
// variant's playlist and the audio playlist, both init segments, then each video segment together
// with the audio segment(s) it needs, as fast as possible until 10 s are buffered, then at real-time
// pace. After each video segment the ABR may move one rung (by the time that segment took). Playback
// is modelled, not rendered: the timeline says when it started, when it stalled and for how long.
// Runs until the whole asset is buffered (the rest of playback then cannot stall) or the wall-clock
// budget is over; either way the timeline is played forward to the budget or the end.

export type FetchKind = 'multivariant' | 'playlist' | 'init' | 'video' | 'audio';

export type ViewerFetch = {
  kind: FetchKind;
  /** The rendition (e.g. "540p", "audio"); empty for the multivariant playlist. */
  rendition: string;
  /** Segment index (video and audio segments). */
  index: number | null;
  url: string;
  /** 0 when the request failed without an answer. */
  status: number;
  /** Request sent → last byte. */
  ms: number;
  bytes: number;
  /** When it finished, from the viewer's start. */
  atMs: number;
  error?: string;
};

export type KeptBody = { kind: FetchKind; rendition: string; index: number | null; body: Buffer };

export type ViewerReport = {
  durationSeconds: number;
  /** Viewer start → playback start (10 s buffered); null: never started. */
  startupMs: number | null;
  stalls: number;
  stalledSeconds: number;
  /** Where the playhead was at the end of the budget (the duration when it got to the end). */
  reachedSeconds: number;
  reachedEnd: boolean;
  /** Every media segment of the asset was fetched (video, with its audio). */
  fetchedEverything: boolean;
  /** The ladder as the viewer ordered it (cheapest first) and where it started. */
  ladder: string[];
  firstListed: string;
  segmentsByRung: Record<string, number>;
  /** ABR moves; `refused`: the server answered a segment with a 4xx and the viewer took the next lower rung for it. */
  switches: Array<{ atMs: number; from: string; to: string; share: number; refused?: boolean }>;
  fetches: ViewerFetch[];
  errors: ViewerFetch[];
  kept: KeptBody[];
  wallMs: number;
};

export type ViewerOptions = {
  multivariantUrl: string;
  /** Wall-clock budget from the first request. */
  wallSeconds: number;
  pacing?: PacingPolicy;
  abr?: AbrThresholds;
  /** A browser opens a few connections per origin; by default each viewer gets its own six. */
  agent?: http.Agent;
  /** Bodies to keep (e.g. to decode a sample); the others are only counted. */
  keep?: (fetch: { kind: FetchKind; rendition: string; index: number | null }) => boolean;
  /** Stops the viewer early (the report covers what happened until then). */
  signal?: AbortSignal;
  requestTimeoutMs?: number;
};

type MediaPlaylist = { initUrl: string; segments: Array<TimedSegment & { url: string }> };

const RETRIES = 2;
const RETRY_DELAY_MS = 500;

// Like hls.js: a 4xx is not retried on the same URL (a refused segment is fetched from the next
// lower variant instead), anything else is.
const isRefusal = (status: number) => status >= 400 && status < 500;

/** EXT-X-MAP and the segments with their EXTINF durations. */
export const parseTimedMediaPlaylist = (text: string, playlistUrl: string): MediaPlaylist => {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const mapUri = /URI="([^"]*)"/.exec(lines.find((line) => line.startsWith('#EXT-X-MAP:')) ?? '')?.[1];
  if (!mapUri) throw new Error(`${playlistUrl} has no EXT-X-MAP`);
  const durations: number[] = [];
  const urls: string[] = [];
  let pending: number | null = null;
  for (const line of lines) {
    if (line.startsWith('#EXTINF:')) pending = Number.parseFloat(line.slice('#EXTINF:'.length));
    else if (line !== '' && !line.startsWith('#')) {
      if (pending === null || !Number.isFinite(pending)) throw new Error(`${playlistUrl}: segment ${line} has no EXTINF`);
      durations.push(pending);
      urls.push(new URL(line, playlistUrl).toString());
      pending = null;
    }
  }
  const timed = timedSegments(durations);
  return { initUrl: new URL(mapUri, playlistUrl).toString(), segments: timed.map((segment, index) => ({ ...segment, url: urls[index] ?? '' })) };
};

/** The audio rendition's playlist (EXT-X-MEDIA TYPE=AUDIO), if any. */
export const audioPlaylistUrl = (multivariant: string, playlistUrl: string): string | null => {
  const media = multivariant.split(/\r?\n/).find((line) => line.startsWith('#EXT-X-MEDIA:') && line.includes('TYPE=AUDIO'));
  const uri = media ? /URI="([^"]*)"/.exec(media)?.[1] : undefined;
  return uri ? new URL(uri, playlistUrl).toString() : null;
};

export const runSimulatedViewer = async (options: ViewerOptions): Promise<ViewerReport> => {
  if (options.agent) return simulateViewer(options, options.agent);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
  try {
    return await simulateViewer(options, agent);
  } finally {
    agent.destroy();
  }
};

const simulateViewer = async (options: ViewerOptions, agent: http.Agent): Promise<ViewerReport> => {
  const pacing = options.pacing ?? DEFAULT_PACING;
  const abr = options.abr ?? DEFAULT_ABR;
  const startedAt = performance.now();
  const deadline = startedAt + options.wallSeconds * 1000;
  const elapsed = () => performance.now() - startedAt;
  const fetches: ViewerFetch[] = [];
  const kept: KeptBody[] = [];
  const stopped = () => options.signal?.aborted === true || performance.now() >= deadline;

  // One GET, retried like a player retries a failed fragment; every attempt is recorded.
  const fetchWithRetries = async (
    kind: FetchKind,
    rendition: string,
    index: number | null,
    url: string,
  ): Promise<{ body: Buffer; ms: number } | { refused: true } | null> => {
    const keepBody = kind === 'multivariant' || kind === 'playlist' || options.keep?.({ kind, rendition, index }) === true;
    for (let attempt = 0; attempt <= RETRIES; attempt++) {
      const sentAt = performance.now();
      let record: ViewerFetch;
      let body: Buffer | null = null;
      try {
        const response = await request({ url, agent, keepBody, timeoutMs: options.requestTimeoutMs ?? 120_000 });
        record = { kind, rendition, index, url, status: response.status, ms: response.ttlbMs, bytes: response.bytes, atMs: elapsed() };
        if (response.status === 200) body = response.body;
      } catch (error) {
        record = { kind, rendition, index, url, status: 0, ms: performance.now() - sentAt, bytes: 0, atMs: elapsed(), error: error instanceof Error ? error.message : String(error) };
      }
      fetches.push(record);
      if (body) {
        if (keepBody && kind !== 'multivariant' && kind !== 'playlist') kept.push({ kind, rendition, index, body });
        return { body, ms: record.ms };
      }
      if (isRefusal(record.status)) return { refused: true };
      if (stopped()) return null;
      await sleep(RETRY_DELAY_MS);
    }
    return null;
  };

  const get = async (kind: FetchKind, rendition: string, index: number | null, url: string): Promise<{ body: Buffer; ms: number } | null> => {
    const result = await fetchWithRetries(kind, rendition, index, url);
    return result && 'body' in result ? result : null;
  };

  const multivariant = await get('multivariant', '', null, options.multivariantUrl);
  const listed = multivariant ? parseMultivariant(multivariant.body.toString('utf8'), options.multivariantUrl) : [];
  const first = listed[0];
  const finish = (timeline: PlaybackTimeline | null, durationSeconds: number, state: Partial<ViewerReport>): ViewerReport => {
    const wallMs = elapsed();
    timeline?.advance(startedAt + Math.max(wallMs, options.wallSeconds * 1000));
    return {
      durationSeconds,
      startupMs: timeline?.startupMs ?? null,
      stalls: timeline?.stalls ?? 0,
      stalledSeconds: timeline?.stalledSeconds ?? 0,
      reachedSeconds: timeline?.playheadSeconds ?? 0,
      reachedEnd: timeline?.ended ?? false,
      fetchedEverything: false,
      ladder: [],
      firstListed: first?.rung ?? '',
      segmentsByRung: {},
      switches: [],
      ...state,
      fetches,
      // A 429 on a segment is Keyframe steering the viewer to a lower rung (see switches), not a failure.
      errors: fetches.filter((fetch) => fetch.status !== 200 && !(fetch.status === 429 && fetch.kind === 'video')),
      kept,
      wallMs,
    };
  };
  if (!multivariant || !first) return finish(null, 0, {});

  // Cheapest first, for the ABR; it starts where the playlist's first entry is.
  const ladder = [...listed].sort((a, b) => (a.bandwidth ?? 0) - (b.bandwidth ?? 0));
  let rungIndex = ladder.indexOf(first);
  const audioUrl = audioPlaylistUrl(multivariant.body.toString('utf8'), options.multivariantUrl);
  const playlists = new Map<string, MediaPlaylist>();
  const initialised = new Set<string>();
  const mediaPlaylist = async (url: string, rendition: string): Promise<MediaPlaylist | null> => {
    const cached = playlists.get(rendition);
    if (cached) return cached;
    const response = await get('playlist', rendition, null, url);
    if (!response) return null;
    const parsed = parseTimedMediaPlaylist(response.body.toString('utf8'), url);
    playlists.set(rendition, parsed);
    return parsed;
  };
  // A variant's playlist and init segment, the first time it is played.
  const prepare = async (rendition: string, url: string): Promise<MediaPlaylist | null> => {
    const playlist = await mediaPlaylist(url, rendition);
    if (!playlist) return null;
    if (!initialised.has(rendition)) {
      if (!(await get('init', rendition, null, playlist.initUrl))) return null;
      initialised.add(rendition);
    }
    return playlist;
  };

  const [firstVideo, audio] = await Promise.all([
    prepare(first.rung, first.uri),
    audioUrl ? prepare('audio', audioUrl) : Promise.resolve(null),
  ]);
  const ladderNames = ladder.map((variant) => variant.rung);
  if (!firstVideo || (audioUrl && !audio)) return finish(null, 0, { ladder: ladderNames });
  const segments = firstVideo.segments;
  const durationSeconds = segments.reduce((sum, segment) => sum + segment.durationSeconds, 0);
  const timeline = new PlaybackTimeline({ durationSeconds, startupBufferSeconds: pacing.startupBufferSeconds, createdAtMs: startedAt });
  const segmentsByRung: Record<string, number> = {};
  const switches: ViewerReport['switches'] = [];
  let nextAudio = 0;
  let fetchedEverything = true;

  for (const [index, segment] of segments.entries()) {
    timeline.advance(performance.now());
    const wait = msUntilNextFetch(timeline, segment.durationSeconds, pacing);
    if (wait > 0) await sleep(Math.min(wait, Math.max(0, deadline - performance.now())));
    if (stopped()) {
      fetchedEverything = false;
      break;
    }
    const audioIndexes = audio ? audioSegmentsFor(segment, audio.segments, nextAudio) : [];
    const audioFetches = Promise.all(audioIndexes.map((audioIndex) => get('audio', 'audio', audioIndex, audio?.segments[audioIndex]?.url ?? '')));
    let variant = ladder[rungIndex] ?? first;
    let video: { body: Buffer; ms: number } | null = null;
    for (;;) {
      variant = ladder[rungIndex] ?? first;
      const playlist = await prepare(variant.rung, variant.uri);
      const videoSegment = playlist?.segments[index];
      if (!playlist || !videoSegment) break;
      if (playlist.segments.length !== segments.length) throw new Error(`${variant.rung} lists ${playlist.segments.length} segments, ${first.rung} ${segments.length}`);
      const result = await fetchWithRetries('video', variant.rung, index, videoSegment.url);
      if (result && 'refused' in result && rungIndex > 0) {
        switches.push({ atMs: Math.round(elapsed()), from: variant.rung, to: ladder[rungIndex - 1]?.rung ?? '?', share: 0, refused: true });
        rungIndex--;
        continue;
      }
      video = result && 'body' in result ? result : null;
      break;
    }
    const audioResults = await audioFetches;
    if (!video || audioResults.some((result) => result === null)) {
      fetchedEverything = false;
      break;
    }
    nextAudio = (audioIndexes.at(-1) ?? nextAudio - 1) + 1;
    segmentsByRung[variant.rung] = (segmentsByRung[variant.rung] ?? 0) + 1;
    timeline.append(performance.now(), segment.startSeconds + segment.durationSeconds);
    const next = nextRungIndex(rungIndex, ladder.length, video.ms / 1000, segment.durationSeconds, abr);
    if (next !== rungIndex) {
      switches.push({ atMs: Math.round(elapsed()), from: variant.rung, to: ladder[next]?.rung ?? '?', share: video.ms / 1000 / segment.durationSeconds });
      rungIndex = next;
    }
  }
  return finish(timeline, durationSeconds, { fetchedEverything, ladder: ladderNames, segmentsByRung, switches });
};
