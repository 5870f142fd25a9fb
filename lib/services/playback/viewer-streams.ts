// Who is watching what, estimated from segment requests alone, so every encode a viewer waits for
// can carry a deadline: the moment that viewer's buffer runs out.
//
// A viewer is not identified by any one request: several players can share an address and a
// User-Agent (a household, a load test), and one player spreads its requests over several
// connections. What does identify a player is that it fetches a track's segments in order. So the
// requests of one client (address + User-Agent) on one asset are grouped into streams: a request
// for segment n continues the stream whose last request was n − 1 (or n itself: a rung switch
// fetches the same index again from the new rung); anything else (a new player, a seek) starts a
// stream. Video and audio are separate streams (their segments have different lengths).
//
// For each stream the playhead is estimated as advancing in real time from the first request,
// but never past what the player has fetched (a request for segment n means it holds everything
// before start(n)); a stalled player's playhead thereby waits at the end of its buffer. Segment n
// is then due at now + (start(n) − playhead): at once for a starting player, later the further its
// buffer runs ahead.

export type TrackKind = 'video' | 'audio';

export type ViewerStream = {
  readonly id: string;
  readonly clientKey: string;
  readonly assetId: string;
  readonly track: TrackKind;
  rung: string;
  lastIndex: number;
  /** Media time up to which the player holds (or is fetching) the track: the start of its last request. */
  fetchedUntil: number;
  playhead: number;
  playheadAt: number;
  lastRequestAt: number;
  /** It has moved on from one segment to the next: a player playing, not a check fetching one index of every rung. */
  hasAdvanced: boolean;
};

type StreamProgress = Pick<ViewerStream, 'rung' | 'lastIndex' | 'fetchedUntil' | 'playhead' | 'playheadAt' | 'lastRequestAt' | 'hasAdvanced'>;

export type SegmentRequestNote = {
  clientKey: string;
  assetId: string;
  track: TrackKind;
  rung: string;
  index: number;
  /** Media time (seconds) at which the segment starts. */
  start: number;
  now: number;
};

export type NotedRequest = {
  stream: ViewerStream;
  /** Epoch ms at which the viewer's buffer runs out, i.e. the segment is due. */
  deadline: number;
  /** The stream was on another rung before this request. */
  switchedFrom: string | null;
  /** The request started a new stream (a starting player, or a seek). */
  isNew: boolean;
  /** The stream's request before this one was for the previous segment: its player moves on in its playback (not a refetch of a segment on another rung). */
  advanced: boolean;
  /**
   * The stream had moved on in its playback before this request. Several players behind one
   * address play in step as one stream, so when such a stream asks for the index it is at on
   * another rung, that is one of them switching while playing, as `advanced` is for a lone player.
   */
  playing: boolean;
  /** What the request changed, for revert. */
  undo: { progress: StreamProgress | null; lastIndexOnRung: number | undefined; rung: string; index: number; notedAt: number };
};

// A player with a full buffer still asks for a segment every few seconds; one silent this long
// has stopped (paused, closed, or seeked and now counted as a new stream).
export const VIEWER_GONE_MS = 30_000;
const SWEEP_INTERVAL_MS = 5_000;

export class ViewerStreams {
  private readonly byClientAsset = new Map<string, ViewerStream[]>();
  // Per client and asset, the last index asked for on each (track, rung). Several players behind one
  // address with one User-Agent (a classroom behind NAT, a load test) play in step and are counted
  // as one stream whose rung seems to flip between theirs; what shows they are several is that
  // the same index is asked for on two rungs.
  private readonly lastIndexByRung = new Map<string, Map<string, number>>();
  private nextId = 0;
  private lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: { goneAfterMs?: number; onGone?: (stream: ViewerStream) => void } = {}) {}

  note({ clientKey, assetId, track, rung, index, start, now }: SegmentRequestNote): NotedRequest {
    // Requests drive the sweeping, so no timer is needed; with no requests, nothing is waiting.
    if (now - this.lastSweepAt >= SWEEP_INTERVAL_MS) this.sweep(now);
    const groupKey = groupKeyOf(clientKey, assetId);
    const group = (this.byClientAsset.get(groupKey) ?? []).filter((stream) => this.isActive(stream, now) || (this.gone(stream), false));
    const continuing = (candidate: ViewerStream) => candidate.track === track && candidate.lastIndex === index - 1;
    const repeating = (candidate: ViewerStream) => candidate.track === track && candidate.lastIndex === index;
    const existing =
      group.find((candidate) => continuing(candidate) && candidate.rung === rung) ??
      group.find(continuing) ??
      group.find((candidate) => repeating(candidate) && candidate.rung !== rung) ??
      group.find(repeating);
    let stream: ViewerStream;
    let switchedFrom: string | null = null;
    const advanced = existing !== undefined && existing.lastIndex === index - 1;
    const progress = existing ? progressOf(existing) : null;
    if (existing) {
      stream = existing;
      // The player holds everything before start(index); its playhead cannot be past that.
      stream.playhead = Math.min(stream.playhead + (now - stream.playheadAt) / 1000, start);
      stream.playheadAt = now;
      if (stream.rung !== rung) switchedFrom = stream.rung;
      stream.rung = rung;
      stream.lastIndex = index;
      stream.fetchedUntil = start;
      stream.lastRequestAt = now;
      stream.hasAdvanced ||= advanced;
    } else {
      stream = { id: `s${this.nextId++}`, clientKey, assetId, track, rung, lastIndex: index, fetchedUntil: start, playhead: start, playheadAt: now, lastRequestAt: now, hasAdvanced: false };
      group.push(stream);
    }
    this.byClientAsset.set(groupKey, group);
    const byRung = this.lastIndexByRung.get(groupKey) ?? new Map<string, number>();
    const lastIndexOnRung = byRung.get(rungKeyOf(track, rung));
    byRung.set(rungKeyOf(track, rung), Math.max(index, lastIndexOnRung ?? -1));
    this.lastIndexByRung.set(groupKey, byRung);
    const undo = { progress, lastIndexOnRung, rung, index, notedAt: now };
    return { stream, deadline: this.deadlineFor(stream, start, now), switchedFrom, isNew: !existing, advanced, playing: progress?.hasAdvanced ?? false, undo };
  }

  /**
   * Takes back what a request changed when it was refused: its player asks for the same segment
   * on another rung next, and must be seen continuing from where it was, not from a segment it
   * never got (the next player behind the same address asking for the refused rung would
   * otherwise look like a refetch, not a switch).
   */
  revert({ stream, undo }: NotedRequest): void {
    // Another request of the stream noted since (the refusal waited on a bucket lookup) is newer news.
    if (stream.lastRequestAt !== undo.notedAt || stream.rung !== undo.rung || stream.lastIndex !== undo.index) return;
    const groupKey = groupKeyOf(stream.clientKey, stream.assetId);
    const byRung = this.lastIndexByRung.get(groupKey);
    if (undo.lastIndexOnRung === undefined) byRung?.delete(rungKeyOf(stream.track, stream.rung));
    else byRung?.set(rungKeyOf(stream.track, stream.rung), undo.lastIndexOnRung);
    if (undo.progress) {
      Object.assign(stream, undo.progress);
      return;
    }
    const remaining = (this.byClientAsset.get(groupKey) ?? []).filter((candidate) => candidate !== stream);
    if (remaining.length > 0) this.byClientAsset.set(groupKey, remaining);
    else this.byClientAsset.delete(groupKey);
  }

  /**
   * Whether some player of this stream's client still plays `rung` where the stream is: it asked
   * for the stream's index (or a later one) on that rung. A stream that left a rung nobody else of
   * its client plays is done with that rung.
   */
  stillPlayedBesides(stream: ViewerStream, rung: string): boolean {
    const last = this.lastIndexByRung.get(groupKeyOf(stream.clientKey, stream.assetId))?.get(rungKeyOf(stream.track, rung));
    return last !== undefined && last >= stream.lastIndex;
  }

  /** When the segment starting at `start` (media seconds) is due for this stream's viewer, in epoch ms. */
  deadlineFor(stream: ViewerStream, start: number, now: number): number {
    const playhead = Math.min(stream.playhead + (now - stream.playheadAt) / 1000, stream.fetchedUntil);
    return now + (start - playhead) * 1000;
  }

  isActive(stream: ViewerStream, now: number): boolean {
    return now - stream.lastRequestAt < (this.options.goneAfterMs ?? VIEWER_GONE_MS);
  }

  activeStreams(now: number): ViewerStream[] {
    this.sweep(now);
    return [...this.byClientAsset.values()].flat();
  }

  /** Drops the streams that have gone silent, telling `onGone` about each. */
  sweep(now: number): void {
    this.lastSweepAt = now;
    for (const [key, group] of this.byClientAsset) {
      const active = group.filter((stream) => this.isActive(stream, now) || (this.gone(stream), false));
      if (active.length === 0) {
        this.byClientAsset.delete(key);
        this.lastIndexByRung.delete(key);
      }
      else this.byClientAsset.set(key, active);
    }
  }

  private gone(stream: ViewerStream): void {
    this.options.onGone?.(stream);
  }
}

const groupKeyOf = (clientKey: string, assetId: string) => `${clientKey}\n${assetId}`;
const rungKeyOf = (track: TrackKind, rung: string) => `${track}/${rung}`;

const progressOf = ({ rung, lastIndex, fetchedUntil, playhead, playheadAt, lastRequestAt, hasAdvanced }: ViewerStream): StreamProgress => ({
  rung,
  lastIndex,
  fetchedUntil,
  playhead,
  playheadAt,
  lastRequestAt,
  hasAdvanced,
});
