import { fetchText, parseMediaPlaylist } from './live-playlists';
import { recordedBytes } from './live-simulcast';
import { round, sleep } from '../stats';

// What the hostile-input case (live-hostile.ts) watches while it misbehaves: the broadcast as a
// light viewer sees it (its first rendition's media playlist polled, every newly listed segment
// fetched) and the good simulcast target's file growing. Both keep timestamps, so the window the
// hostile inputs ran in can be cut out of them afterwards.

const POLL_MS = 250;

type ListedSegment = { msn: number; seenAtMs: number; discontinuity: number; fetched: boolean };

export type BroadcastWatch = {
  /** Segments first listed inside the window. */
  segmentsListed: number;
  /** Media sequence numbers skipped between consecutive listings in the window (a viewer would miss them). */
  msnGaps: number;
  /** EXT-X-DISCONTINUITY tags that came in during the window (a packager restart adds one). */
  newDiscontinuities: number;
  /** The longest wait for the next new segment in the window (from the last one listed before it, up to its end). */
  longestBetweenNewSegmentsMs: number;
  /** When that wait began, in seconds from the window's start (to hold against the acts' times). */
  longestWaitFromSeconds: number;
  segmentFetchFailures: number;
  playlistFetchFailures: number;
};

/** A viewer without a player: the media playlist every 250 ms, each new segment fetched at once. */
export class BroadcastPoller {
  private readonly listed = new Map<number, ListedSegment>();
  private playlistFailures: number[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly mediaPlaylistUrl: string) {
    this.loop = (async () => {
      while (this.running) {
        const started = Date.now();
        await this.poll();
        await sleep(Math.max(0, POLL_MS - (Date.now() - started)));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async poll(): Promise<void> {
    const answer = await fetchText(this.mediaPlaylistUrl);
    const seenAtMs = Date.now();
    if (answer.status !== 200) {
      this.playlistFailures.push(seenAtMs);
      return;
    }
    const uris = answer.text.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
    const segments = parseMediaPlaylist(answer.text);
    for (const [index, segment] of segments.entries()) {
      if (this.listed.has(segment.msn)) continue;
      const entry: ListedSegment = { msn: segment.msn, seenAtMs, discontinuity: segment.discontinuity, fetched: false };
      this.listed.set(segment.msn, entry);
      const uri = uris[index];
      // Fetched as a player would, so a segment listed but not served counts against the broadcast.
      if (uri !== undefined) entry.fetched = await fetchSegment(new URL(uri, this.mediaPlaylistUrl).toString());
    }
  }

  /** The broadcast as seen from `fromMs` to `toMs`. */
  watched(fromMs: number, toMs: number): BroadcastWatch {
    const all = [...this.listed.values()].sort((a, b) => a.msn - b.msn);
    const inWindow = all.filter((segment) => segment.seenAtMs > fromMs && segment.seenAtMs <= toMs);
    const before = all.filter((segment) => segment.seenAtMs <= fromMs).at(-1);
    let msnGaps = 0;
    let previous = before;
    let longest = { ms: 0, fromMs };
    let lastSeenAtMs = before?.seenAtMs ?? fromMs;
    // A broadcast that stopped listing shows as a long wait up to the window's end.
    for (const seenAtMs of [...inWindow.map((segment) => segment.seenAtMs), toMs]) {
      if (seenAtMs - lastSeenAtMs > longest.ms) longest = { ms: seenAtMs - lastSeenAtMs, fromMs: lastSeenAtMs };
      lastSeenAtMs = Math.max(lastSeenAtMs, seenAtMs);
    }
    for (const segment of inWindow) {
      if (previous) msnGaps += Math.max(0, segment.msn - previous.msn - 1);
      previous = segment;
    }
    const last = inWindow.at(-1);
    return {
      segmentsListed: inWindow.length,
      msnGaps,
      newDiscontinuities: last && before ? last.discontinuity - before.discontinuity : 0,
      longestBetweenNewSegmentsMs: longest.ms,
      longestWaitFromSeconds: round((longest.fromMs - fromMs) / 1000, 1),
      segmentFetchFailures: inWindow.filter((segment) => !segment.fetched).length,
      playlistFetchFailures: this.playlistFailures.filter((atMs) => atMs > fromMs && atMs <= toMs).length,
    };
  }
}

const fetchSegment = async (url: string): Promise<boolean> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return response.ok && (await response.arrayBuffer()).byteLength > 0;
  } catch {
    return false;
  }
};

export type FileGrowth = {
  bytesAtStart: number;
  bytesAtEnd: number;
  longestStillMs: number;
  /** When the file stopped growing for that long, in seconds from the window's start. */
  longestStillFromSeconds: number;
  growthKbps: number | null;
};

/** The size of a file that should keep growing (a simulcast receiver's recording), every 250 ms. */
export class FileGrowthWatcher {
  private readonly samples: Array<{ atMs: number; bytes: number }> = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly file: string) {
    this.loop = (async () => {
      while (this.running) {
        this.samples.push({ atMs: Date.now(), bytes: recordedBytes(this.file) });
        await sleep(POLL_MS);
      }
    })();
  }

  bytesNow(): number {
    return recordedBytes(this.file);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  growth(fromMs: number, toMs: number): FileGrowth {
    const inWindow = this.samples.filter((sample) => sample.atMs >= fromMs && sample.atMs <= toMs);
    const first = inWindow[0];
    const last = inWindow.at(-1);
    if (!first || !last) return { bytesAtStart: 0, bytesAtEnd: 0, longestStillMs: toMs - fromMs, longestStillFromSeconds: 0, growthKbps: null };
    // From the last sample that grew to the next that grew: the longest the receiver got nothing.
    let longest = { ms: 0, fromMs: first.atMs };
    let grewAtMs = first.atMs;
    let bytes = first.bytes;
    for (const sample of inWindow) {
      const grew = sample.bytes > bytes;
      if ((grew || sample === last) && sample.atMs - grewAtMs > longest.ms) longest = { ms: sample.atMs - grewAtMs, fromMs: grewAtMs };
      if (grew) {
        grewAtMs = sample.atMs;
        bytes = sample.bytes;
      }
    }
    const seconds = (last.atMs - first.atMs) / 1000;
    return {
      bytesAtStart: first.bytes,
      bytesAtEnd: last.bytes,
      longestStillMs: longest.ms,
      longestStillFromSeconds: round((longest.fromMs - fromMs) / 1000, 1),
      growthKbps: seconds > 0 ? round(((last.bytes - first.bytes) * 8) / 1000 / seconds, 0) : null,
    };
  }
}
