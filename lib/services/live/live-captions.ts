import type { LiveSegmentEntry } from '../../media/live/live-playlists';
import { renditionFileUri, subtitlesSegmentFileName } from '../../media/names';
import type { Cue } from '../../media/text/cues';
import { renderWebVtt } from '../../media/text/cues';
import { cuesInSpan, timestampMapLine } from '../../media/text/segment-webvtt';
import { slidingWindowStart } from './live-timeline';

// A broadcast's generated captions as a live HLS subtitles rendition: one WebVTT segment per
// segment of the first rung (same media sequence numbers, durations, discontinuities and dates,
// so players line the two up), each listed only once its cues are known, then never changed.
//
// The recogniser answers per utterance, when the speaker pauses, so a segment's cues come after
// the segment: segment n is listed when the recogniser has answered for speech past its end (an
// utterance ending later: everything before is decided), when its connection has no more to say
// (ended, or a slate), or at the latest `holdBackSeconds` after its end (silence, where the
// recogniser says nothing, or one long utterance). Cues that come after their segment was listed
// go into the next one listed, at their own times: a player still behind shows them.
//
// Times: cues are kept in seconds from the start of their connection's first segment, and each
// WebVTT segment maps that timeline onto the connection's media with X-TIMESTAMP-MAP (MPEGTS: the
// first segment's decode time in 90 kHz units; see segment-webvtt.ts for how players apply it).

export const LIVE_CAPTIONS_RENDITION = 'subtitles-generated';

type PendingSegment = Omit<LiveSegmentEntry, 'uri' | 'mapUri' | 'parts'> & { connection: number; startSeconds: number };
type ListedSegment = PendingSegment & { text: string };

type ConnectionCaptions = {
  /** X-TIMESTAMP-MAP's MPEGTS: the connection's first media time, 90 kHz. */
  mpegts: number;
  cues: Array<Cue & { listed: boolean }>;
  /** Seconds (connection timeline) up to which the recogniser has answered. */
  heardUntilSeconds: number;
  /** No more cues will come (the connection ended, or it never had a recogniser). */
  finished: boolean;
  /** Seconds of the connection's segments so far. */
  cursorSeconds: number;
};

export class LiveCaptionsTrack {
  private readonly connections = new Map<number, ConnectionCaptions>();
  private readonly pending: PendingSegment[] = [];
  readonly listed: ListedSegment[] = [];
  private timer: NodeJS.Timeout | null = null;
  private ended = false;

  constructor(
    readonly holdBackSeconds: number,
    readonly minimumTargetSeconds: number,
  ) {}

  get isEnded(): boolean {
    return this.ended;
  }

  get targetDurationSeconds(): number {
    return Math.max(this.minimumTargetSeconds, ...this.listed.map((segment) => Math.round(segment.durationSeconds)));
  }

  /** A connection starts; `captioned` false (a slate, a source without audio) lists its segments as they come, empty. */
  openConnection(connection: number, { captioned }: { captioned: boolean }): void {
    this.connections.set(connection, {
      mpegts: 0,
      cues: [],
      heardUntilSeconds: 0,
      finished: !captioned,
      cursorSeconds: 0,
    });
  }

  /** The connection's first media time (the publisher's clock), known with its first fragment. */
  setMediaStart(connection: number, mediaStartSeconds: number): void {
    const captions = this.connections.get(connection);
    if (captions) captions.mpegts = Math.max(0, Math.round(mediaStartSeconds * 90_000));
  }

  /** A segment of the first rung is complete. */
  addSegment(segment: Omit<PendingSegment, 'startSeconds'>): void {
    const captions = this.connections.get(segment.connection);
    if (!captions || this.ended) return;
    this.pending.push({ ...segment, startSeconds: captions.cursorSeconds });
    captions.cursorSeconds += segment.durationSeconds;
    this.release();
  }

  /** An utterance's cues (connection timeline); `heardUntilSeconds`: where its speech ended. */
  addCues(connection: number, cues: Cue[], heardUntilSeconds: number): void {
    const captions = this.connections.get(connection);
    if (!captions || captions.finished) return;
    captions.cues.push(...cues.map((cue) => ({ ...cue, listed: false })));
    captions.cues.sort((a, b) => a.start - b.start);
    captions.heardUntilSeconds = Math.max(captions.heardUntilSeconds, heardUntilSeconds);
    this.release();
  }

  /** The connection's recogniser is done: its remaining segments are listed with what it said. */
  finishConnection(connection: number): void {
    const captions = this.connections.get(connection);
    if (!captions) return;
    captions.finished = true;
    this.release();
  }

  /** No more segments: everything pending is listed. */
  end(): void {
    for (const captions of this.connections.values()) captions.finished = true;
    this.release();
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  windowStart(): number {
    return slidingWindowStart(this.listed);
  }

  entries(fromIndex: number): Array<Omit<LiveSegmentEntry, 'mapUri'>> {
    return this.listed.slice(fromIndex).map(({ msn, durationSeconds, programDateTime, discontinuity }) => ({
      msn,
      durationSeconds,
      programDateTime,
      discontinuity,
      uri: renditionFileUri(LIVE_CAPTIONS_RENDITION, subtitlesSegmentFileName(msn)),
    }));
  }

  segmentText(msn: number): string | null {
    return this.listed.find((segment) => segment.msn === msn)?.text ?? null;
  }

  private isDecided(segment: PendingSegment, now: number): boolean {
    const captions = this.connections.get(segment.connection)!;
    const endSeconds = segment.startSeconds + segment.durationSeconds;
    if (captions.finished || captions.heardUntilSeconds >= endSeconds) return true;
    return now >= segment.programDateTime.getTime() + (segment.durationSeconds + this.holdBackSeconds) * 1000;
  }

  private release(): void {
    const now = Date.now();
    while (this.pending.length > 0 && this.isDecided(this.pending[0]!, now)) this.list(this.pending.shift()!);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const next = this.pending[0];
    if (next && !this.ended) {
      const dueAt = next.programDateTime.getTime() + (next.durationSeconds + this.holdBackSeconds) * 1000;
      this.timer = setTimeout(() => this.release(), Math.max(0, dueAt - now) + 1);
      this.timer.unref();
    }
  }

  private list(segment: PendingSegment): void {
    const captions = this.connections.get(segment.connection)!;
    const span = { start: segment.startSeconds, end: segment.startSeconds + segment.durationSeconds };
    // Late cues (ended before this segment, never listed) ride along, at their own times.
    const late = captions.cues.filter((cue) => !cue.listed && cue.end <= span.start);
    const cues = [...late, ...cuesInSpan(captions.cues, span)];
    for (const cue of cues) cue.listed = true;
    // Listed cues that ended before this segment are in no later one: kept out of every later scan.
    const firstKept = captions.cues.findIndex((cue) => !cue.listed || cue.end > span.start);
    captions.cues.splice(0, firstKept === -1 ? captions.cues.length : firstKept);
    const text = renderWebVtt(
      cues.map(({ start, end, text: payload }) => ({ start, end, text: payload })),
      { header: [timestampMapLine(captions.mpegts)] },
    );
    this.listed.push({ ...segment, text });
  }
}
