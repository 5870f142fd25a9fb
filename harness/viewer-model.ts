// The player model behind the simulated viewers of the load phase (simulated-viewer.ts), kept free
// of I/O so its rules can be tested on their own: when playback starts, when it stalls and for how
// long, when the next segment is fetched, and which rung the ABR picks next. Times are
// milliseconds on the caller's clock; media positions are seconds.

export type PacingPolicy = {
  /** Playback starts once this much media is buffered (or the whole asset, if shorter). */
  startupBufferSeconds: number;
  /** After the start, the next segment is fetched once less than this is buffered ahead of the playhead: real-time pace. */
  paceAheadSeconds: number;
  /** Never more than this buffered ahead (hls.js's maxBufferLength). */
  maxAheadSeconds: number;
};

export const DEFAULT_PACING: PacingPolicy = { startupBufferSeconds: 10, paceAheadSeconds: 10, maxAheadSeconds: 30 };

export type AbrThresholds = {
  /** Drop a rung when a segment took more than this share of its duration to fetch. */
  dropAbove: number;
  /** Climb a rung when it took less than this share. */
  climbBelow: number;
};

export const DEFAULT_ABR: AbrThresholds = { dropAbove: 0.8, climbBelow: 0.3 };

// Positions within this of the end count as the end (segment durations are rounded to microseconds).
const END_EPSILON_SECONDS = 0.001;

type PlaybackState = 'buffering' | 'playing' | 'stalled' | 'ended';

/**
 * Playback of one viewer: the buffer only grows when a segment (with its audio) has arrived; the
 * playhead moves in real time from the start of playback and stops where the buffer ends. A stall
 * is the playhead reaching the end of the buffer before the end of the asset; it lasts until the
 * next segment arrives.
 */
export class PlaybackTimeline {
  private state: PlaybackState = 'buffering';
  private clockMs: number;
  private position = 0;
  private bufferedEnd = 0;
  private startedAtMs: number | null = null;
  private endTimeMs: number | null = null;
  private stallCount = 0;
  private stalledMs = 0;
  private stallStartedAtMs: number | null = null;

  constructor(
    private readonly options: { durationSeconds: number; startupBufferSeconds: number; createdAtMs: number },
  ) {
    this.clockMs = options.createdAtMs;
  }

  /** Moves the clock to `atMs` (never backwards): the playhead plays what is buffered, then stalls. */
  advance(atMs: number): void {
    if (atMs <= this.clockMs) return;
    if (this.state === 'playing') {
      const elapsedSeconds = (atMs - this.clockMs) / 1000;
      const room = this.bufferedEnd - this.position;
      if (elapsedSeconds < room) {
        this.position += elapsedSeconds;
      } else {
        this.position = this.bufferedEnd;
        const reachedAtMs = this.clockMs + room * 1000;
        if (this.bufferedEnd >= this.options.durationSeconds - END_EPSILON_SECONDS) {
          this.state = 'ended';
          this.endTimeMs = reachedAtMs;
        } else {
          this.state = 'stalled';
          this.stallCount++;
          this.stallStartedAtMs = reachedAtMs;
        }
      }
    }
    this.clockMs = atMs;
  }

  /** Media up to `bufferedEndSeconds` arrived at `atMs`. */
  append(atMs: number, bufferedEndSeconds: number): void {
    this.advance(atMs);
    this.bufferedEnd = Math.max(this.bufferedEnd, Math.min(bufferedEndSeconds, this.options.durationSeconds));
    const complete = this.bufferedEnd >= this.options.durationSeconds - END_EPSILON_SECONDS;
    if (this.state === 'buffering' && (this.bufferedEnd >= this.options.startupBufferSeconds || complete)) {
      this.state = 'playing';
      this.startedAtMs = atMs;
    } else if (this.state === 'stalled' && this.bufferedEnd > this.position) {
      this.stalledMs += atMs - (this.stallStartedAtMs ?? atMs);
      this.stallStartedAtMs = null;
      this.state = 'playing';
    }
  }

  get started(): boolean {
    return this.startedAtMs !== null;
  }

  get ended(): boolean {
    return this.state === 'ended';
  }

  get stalled(): boolean {
    return this.state === 'stalled';
  }

  /** Creation → start of playback. */
  get startupMs(): number | null {
    return this.startedAtMs === null ? null : this.startedAtMs - this.options.createdAtMs;
  }

  /** When the playhead reached the end of the asset. */
  get endedAtMs(): number | null {
    return this.endTimeMs;
  }

  get stalls(): number {
    return this.stallCount;
  }

  /** Stalled time up to the clock, including a stall still going on. */
  get stalledSeconds(): number {
    const ongoing = this.stallStartedAtMs === null ? 0 : this.clockMs - this.stallStartedAtMs;
    return (this.stalledMs + ongoing) / 1000;
  }

  get playheadSeconds(): number {
    return this.position;
  }

  get bufferedEndSeconds(): number {
    return this.bufferedEnd;
  }

  get bufferAheadSeconds(): number {
    return this.bufferedEnd - this.position;
  }
}

/**
 * How long to wait before fetching the next segment (`nextSegmentSeconds` long): none while
 * starting or below the pace, otherwise until the playhead has used up the surplus; never so that
 * more than `maxAheadSeconds` would be buffered.
 */
export const msUntilNextFetch = (timeline: PlaybackTimeline, nextSegmentSeconds: number, pacing: PacingPolicy): number => {
  if (!timeline.started || timeline.ended || timeline.stalled) return 0;
  const ahead = timeline.bufferAheadSeconds;
  const untilPace = ahead - pacing.paceAheadSeconds;
  const untilRoom = ahead + nextSegmentSeconds - pacing.maxAheadSeconds;
  return Math.max(0, untilPace, untilRoom) * 1000;
};

/**
 * The ABR rule: rungs are ordered from the cheapest (index 0) up; after a segment that took
 * `fetchSeconds` to fetch, drop one rung when that was more than `dropAbove` of its duration,
 * climb one when it was less than `climbBelow`, else stay.
 */
export const nextRungIndex = (
  current: number,
  rungCount: number,
  fetchSeconds: number,
  segmentSeconds: number,
  thresholds: AbrThresholds = DEFAULT_ABR,
): number => {
  const share = fetchSeconds / segmentSeconds;
  if (share > thresholds.dropAbove) return Math.max(0, current - 1);
  if (share < thresholds.climbBelow) return Math.min(rungCount - 1, current + 1);
  return current;
};

export type TimedSegment = { startSeconds: number; durationSeconds: number };

/** Starts of segments from their durations (as listed in a media playlist). */
export const timedSegments = (durations: readonly number[]): TimedSegment[] => {
  let start = 0;
  return durations.map((durationSeconds) => {
    const segment = { startSeconds: start, durationSeconds };
    start += durationSeconds;
    return segment;
  });
};

/**
 * The audio segments a player needs with the video segment `video` (the ones that start before it
 * ends), from `firstUnfetched` on: buffered media ends where the shorter of the two tracks ends.
 */
export const audioSegmentsFor = (video: TimedSegment, audio: readonly TimedSegment[], firstUnfetched: number): number[] => {
  const needed: number[] = [];
  const videoEnd = video.startSeconds + video.durationSeconds;
  for (let index = firstUnfetched; index < audio.length; index++) {
    const segment = audio[index];
    if (!segment || segment.startSeconds >= videoEnd - END_EPSILON_SECONDS) break;
    needed.push(index);
  }
  return needed;
};
