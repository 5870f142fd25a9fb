import { readFile } from 'node:fs/promises';
import type { LivePartEntry, LiveSegmentEntry } from '../../media/live/live-playlists';
import type { LivePart } from '../../media/live/live-segmenter';
import { liveInitFileName, livePartFileName, renditionFileUri, segmentFileName } from '../../media/names';

// One rendition of a broadcast as players see it: its segments across every connection of the
// broadcast (numbered on across reconnects, a discontinuity where a connection starts), the parts
// of the segment being made (low latency), and the waits of blocking playlist reloads. Recent
// media is answered from memory; older segments from the files they were written to.

type StoredPart = { durationSeconds: number; independent: boolean; bytes: Buffer };

export type TimelineSegment = {
  msn: number;
  connection: number;
  durationSeconds: number;
  programDateTime: Date;
  discontinuity: boolean;
  filePath: string;
  /** Kept while the segment is in the live window (dropped after); then read from filePath. */
  bytes: Buffer | null;
  /** Kept for the last few segments, for low-latency playlists and part requests. */
  parts: StoredPart[] | null;
};

type OpenSegment = { msn: number; connection: number; programDateTime: Date; discontinuity: boolean; parts: StoredPart[] };

type Waiter = { msn: number; part: number | undefined; resolve: (reached: boolean) => void; timer: NodeJS.Timeout };

// Mux keeps "approximately the most recent 30 seconds" in a live playlist.
export const LIVE_WINDOW_SECONDS = 30;

/** The index of the first segment a sliding-window playlist lists: the last LIVE_WINDOW_SECONDS of them. */
export const slidingWindowStart = (segments: ReadonlyArray<{ durationSeconds: number }>): number => {
  let total = 0;
  let index = segments.length;
  while (index > 0 && total < LIVE_WINDOW_SECONDS) {
    index -= 1;
    total += segments[index]!.durationSeconds;
  }
  return index;
};

const SEGMENTS_WITH_PARTS = 4;

const initUri = (rendition: string, connection: number) => renditionFileUri(rendition, liveInitFileName(connection));

export class LiveTimeline {
  readonly segments: TimelineSegment[] = [];
  private open: OpenSegment | null = null;
  private readonly inits = new Map<number, Buffer>();
  private waiters: Waiter[] = [];
  private longestSegmentSeconds = 0;
  private ended = false;

  constructor(
    readonly rendition: string,
    private readonly minimumTargetSeconds: number,
  ) {}

  get nextMsn(): number {
    return this.open?.msn ?? (this.segments.at(-1)?.msn ?? -1) + 1;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** EXT-X-TARGETDURATION: whole seconds, at least every segment's duration rounded. */
  get targetDurationSeconds(): number {
    return Math.max(this.minimumTargetSeconds, Math.round(this.longestSegmentSeconds));
  }

  setInit(connection: number, init: Buffer): void {
    this.inits.set(connection, init);
  }

  init(connection: number): Buffer | undefined {
    return this.inits.get(connection);
  }

  addPart(event: { msn: number; connection: number; programDateTime: Date; discontinuity: boolean; part: LivePart }): void {
    if (!this.open || this.open.msn !== event.msn) {
      this.open = { msn: event.msn, connection: event.connection, programDateTime: event.programDateTime, discontinuity: event.discontinuity, parts: [] };
    }
    this.open.parts.push({ durationSeconds: event.part.durationSeconds, independent: event.part.independent, bytes: event.part.bytes });
    this.wake();
  }

  addSegment(segment: Omit<TimelineSegment, 'parts'>): void {
    const parts = this.open?.msn === segment.msn ? this.open.parts : null;
    this.open = null;
    this.segments.push({ ...segment, parts });
    this.longestSegmentSeconds = Math.max(this.longestSegmentSeconds, segment.durationSeconds);
    this.forgetOldMedia();
    this.wake();
  }

  /** A connection ended: the open segment's parts go (its complete segment came before, or never will). */
  dropOpenSegment(): void {
    this.open = null;
  }

  end(): void {
    this.ended = true;
    this.open = null;
    this.wake();
  }

  /** Segments of the sliding live window: the newest ones that together last about 30 s. */
  windowStart(): number {
    return slidingWindowStart(this.segments);
  }

  lastPart(): { msn: number; part: number } | null {
    if (this.open && this.open.parts.length > 0) return { msn: this.open.msn, part: this.open.parts.length - 1 };
    const last = this.segments.at(-1);
    if (!last) return null;
    return { msn: last.msn, part: (last.parts?.length ?? 1) - 1 };
  }

  // Has the playlist reached segment `msn` (complete) or, with `part`, that part of it?
  private reached(msn: number, part: number | undefined): boolean {
    if (this.ended) return true;
    const lastComplete = this.segments.at(-1)?.msn ?? -1;
    if (lastComplete >= msn) return true;
    if (part === undefined || !this.open) return false;
    return this.open.msn > msn || (this.open.msn === msn && this.open.parts.length > part);
  }

  /** Resolves true once reached, false after `timeoutMs` (the blocking reload then answers 503). */
  waitFor(msn: number, part: number | undefined, timeoutMs: number): Promise<boolean> {
    if (this.reached(msn, part)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        msn,
        part,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((other) => other !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (this.reached(waiter.msn, waiter.part)) {
        clearTimeout(waiter.timer);
        waiter.resolve(true);
      } else still.push(waiter);
    }
    this.waiters = still;
  }

  private forgetOldMedia(): void {
    const windowStart = this.windowStart();
    const dropBytesBefore = windowStart - 1;
    if (dropBytesBefore >= 0) this.segments[dropBytesBefore]!.bytes = null;
    const dropPartsBefore = this.segments.length - SEGMENTS_WITH_PARTS - 1;
    if (dropPartsBefore >= 0) this.segments[dropPartsBefore]!.parts = null;
  }

  /** The playlist entries, with parts where still kept (low latency only asks for them). */
  entries(fromIndex: number, withParts: boolean): LiveSegmentEntry[] {
    return this.segments.slice(fromIndex).map((segment) => ({
      msn: segment.msn,
      durationSeconds: segment.durationSeconds,
      uri: renditionFileUri(this.rendition, segmentFileName(segment.msn)),
      mapUri: initUri(this.rendition, segment.connection),
      programDateTime: segment.programDateTime,
      discontinuity: segment.discontinuity,
      ...(withParts && segment.parts && { parts: this.partEntries(segment.msn, segment.parts) }),
    }));
  }

  openSegmentEntry(): { msn: number; mapUri: string; programDateTime: Date; discontinuity: boolean; parts: LivePartEntry[] } | null {
    if (!this.open) return null;
    const { msn, connection, programDateTime, discontinuity, parts } = this.open;
    return { msn, mapUri: initUri(this.rendition, connection), programDateTime, discontinuity, parts: this.partEntries(msn, parts) };
  }

  private partEntries(msn: number, parts: StoredPart[]): LivePartEntry[] {
    return parts.map((part, index) => ({ durationSeconds: part.durationSeconds, independent: part.independent, uri: renditionFileUri(this.rendition, livePartFileName(msn, index)) }));
  }

  async segmentBytes(msn: number): Promise<Buffer | null> {
    const segment = this.findSegment(msn);
    if (!segment) return null;
    return segment.bytes ?? readFile(segment.filePath).catch(() => null);
  }

  partBytes(msn: number, part: number): Buffer | null {
    if (this.open?.msn === msn) return this.open.parts[part]?.bytes ?? null;
    return this.findSegment(msn)?.parts?.[part]?.bytes ?? null;
  }

  private findSegment(msn: number): TimelineSegment | undefined {
    const first = this.segments[0];
    if (!first) return undefined;
    const candidate = this.segments[msn - first.msn];
    return candidate?.msn === msn ? candidate : this.segments.find((segment) => segment.msn === msn);
  }
}
