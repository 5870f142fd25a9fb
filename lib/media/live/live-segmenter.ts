import {
  readFragmentTimings,
  readInitTracks,
  readTrackDefaults,
  type FragmentTiming,
  type InitTrack,
  type TrackFragmentDefaults,
} from './fragment-timing';

// Groups the fragments (moof+mdat) of one live rendition into HLS parts and segments. Every
// fragment is one part, announced as it arrives; segments are runs of whole parts.

export type LivePart = { durationSeconds: number; independent: boolean; bytes: Buffer };

export type LiveSegmenterEvent =
  | { type: 'part'; msn: number; partIndex: number; part: LivePart }
  | {
      type: 'segment';
      msn: number;
      /** Decode time of its first sample on the rendition's timeline (video track; audio when audio only). */
      startSeconds: number;
      durationSeconds: number;
      parts: LivePart[];
      /** All its fragments concatenated: the segment file, played after the init segment. */
      bytes: Buffer;
    };

export type LiveSegment = Extract<LiveSegmenterEvent, { type: 'segment' }>;

export type LiveSegmenterOptions = { init: Uint8Array; targetSegmentSeconds: number; firstMsn: number };

type OpenSegment = {
  msn: number;
  parts: LivePart[];
  startSeconds: number | null;
  /** Where its other tracks start, for a segment that never gets a sample of the timed track. */
  otherStartSeconds: number | null;
  /** Its duration so far, in the timed track's ticks. */
  ticks: number;
  /** The timed track's own share of `ticks` and its sample count: the mean sample duration. */
  timedTicks: number;
  timedSamples: number;
};

export class LiveSegmenter {
  /** The track whose timing makes part and segment durations: video, or audio for audio-only renditions. */
  readonly timedTrack: InitTrack;
  private readonly otherTracks: InitTrack[];
  private readonly defaults: Map<number, TrackFragmentDefaults>;
  private readonly targetTicks: number;
  private open: OpenSegment;

  constructor({ init, targetSegmentSeconds, firstMsn }: LiveSegmenterOptions) {
    if (!(targetSegmentSeconds > 0)) throw new RangeError(`targetSegmentSeconds must be positive, got ${targetSegmentSeconds}`);
    const tracks = readInitTracks(init);
    const timed = tracks.find((track) => track.kind === 'video') ?? tracks.find((track) => track.kind === 'audio');
    if (!timed) throw new Error('Live rendition has neither a video nor an audio track');
    this.timedTrack = timed;
    this.otherTracks = tracks.filter((track) => track !== timed);
    this.defaults = readTrackDefaults(init);
    this.targetTicks = targetSegmentSeconds * timed.timescale;
    this.open = this.newSegment(firstMsn);
  }

  push(fragment: Buffer): LiveSegmenterEvent[] {
    const timings = readFragmentTimings(fragment, this.defaults);
    const timed = timings.find((timing) => timing.trackId === this.timedTrack.trackId && timing.sampleCount > 0);
    const events: LiveSegmenterEvent[] = [];
    // The cut rule: a segment closes just before a fragment that starts with a sync sample (a
    // video keyframe; every AAC frame, so any fragment boundary when audio only) once the open
    // segment holds at least the target less half a sample, so that a 2 s target on a 2 s GOP
    // cuts at every keyframe even when timestamp rounding leaves the GOP a tick short. Segments
    // are therefore never shorter than the target (bar the last) and as long as the GOP makes them.
    const halfSample = this.open.timedSamples > 0 ? this.open.timedTicks / this.open.timedSamples / 2 : 0;
    if (timed?.firstSampleIsSync && this.open.parts.length > 0 && this.open.ticks >= this.targetTicks - halfSample) {
      events.push(this.close());
    }

    const segment = this.open;
    let ticks: number;
    if (timed) {
      ticks = timed.durationTicks;
      segment.ticks += ticks;
      segment.timedTicks += ticks;
      segment.timedSamples += timed.sampleCount;
      segment.startSeconds ??= Number(timed.baseDecodeTime) / this.timedTrack.timescale;
    } else {
      // A fragment without the timed track (audio ahead of the first video frame, or a stalled
      // video feed) still plays for as long as its other tracks last; its time counts, in the
      // timed track's ticks, so playlist time keeps pace with the media.
      ticks = this.otherTracksTicks(timings);
      segment.ticks += ticks;
      segment.otherStartSeconds ??= this.otherTracksStart(timings);
    }
    const part: LivePart = { durationSeconds: ticks / this.timedTrack.timescale, independent: timed?.firstSampleIsSync ?? false, bytes: fragment };
    segment.parts.push(part);
    events.push({ type: 'part', msn: segment.msn, partIndex: segment.parts.length - 1, part });
    return events;
  }

  /** Closes the open segment (at the end of the broadcast or of a connection). */
  finish(): LiveSegmenterEvent[] {
    return this.open.parts.length > 0 ? [this.close()] : [];
  }

  private otherTracksTicks(timings: FragmentTiming[]): number {
    let seconds = 0;
    for (const timing of timings) {
      const track = this.otherTracks.find((candidate) => candidate.trackId === timing.trackId);
      if (track) seconds = Math.max(seconds, timing.durationTicks / track.timescale);
    }
    return Math.round(seconds * this.timedTrack.timescale);
  }

  private otherTracksStart(timings: FragmentTiming[]): number | null {
    const starts = timings.flatMap((timing) => {
      const track = this.otherTracks.find((candidate) => candidate.trackId === timing.trackId);
      return track ? [Number(timing.baseDecodeTime) / track.timescale] : [];
    });
    return starts.length > 0 ? Math.min(...starts) : null;
  }

  private close(): LiveSegment {
    const { msn, parts, ticks, startSeconds, otherStartSeconds } = this.open;
    this.open = this.newSegment(msn + 1);
    return {
      type: 'segment',
      msn,
      startSeconds: startSeconds ?? otherStartSeconds ?? 0,
      durationSeconds: ticks / this.timedTrack.timescale,
      parts,
      bytes: Buffer.concat(parts.map((part) => part.bytes)),
    };
  }

  private newSegment(msn: number): OpenSegment {
    return { msn, parts: [], startSeconds: null, otherStartSeconds: null, ticks: 0, timedTicks: 0, timedSamples: 0 };
  }
}
