import { renderWebVtt, type Cue } from './cues';

// A text track as an HLS subtitles rendition: one WebVTT file per segment of the media it goes
// with. Each segment holds every cue that overlaps it, so a cue spanning a boundary is in both
// segments (HLS WebVTT segmentation; players drop the repeat), with cue times left on the asset's
// timeline and an X-TIMESTAMP-MAP saying where that timeline sits in the media.
//
// Which MPEGTS value that is depends on how the media segments are timestamped:
// - every video segment is an fMP4 fragment whose tfdt (baseMediaDecodeTime, 90 kHz timescale)
//   is its planned start on the asset timeline (video-segments.ts shifts each encode by
//   segment.start × 90 000), so segment 0 starts at decode time 0;
// - the encodes have no B-frames (encode-args.ts: `-bf 0`), so there are no composition offsets
//   and the first presentation time of each fragment equals its decode time; the init segment has
//   no edit list that would move presentation (checked: ffprobe shows start_time 0 and the first
//   frame's pts_time equal to the segment's planned start);
// - so asset time t is media presentation time t × 90 000, and LOCAL 00:00:00.000 maps to MPEGTS 0.
// How players use it:
// - hls.js (src/utils/webvtt-parser.ts) places a cue at
//   cue time + (MPEGTS − initPTS) / 90 000 − LOCAL, where initPTS is the first main-media
//   fragment's tfdt minus its playlist start (passthrough-remuxer.ts). Our tfdt equals the
//   playlist start, so initPTS is 0 and a cue plays at its source time. In an instant clip the
//   playlists start at a later segment: initPTS becomes that segment's start, and the same MPEGTS 0
//   moves every cue back by it, exactly as the video moved, provided the subtitles playlist lists
//   the same segments (it does, see subtitles-rendition.ts).
// - Safari maps MPEGTS onto the presentation timestamps of the fMP4 media (in 90 kHz units), the
//   same timeline, so the same value holds there.
// - For audio-only assets the audio fragments' tfdt start at 0 on the same timeline; the AAC
//   priming hidden by the audio edit list (1024 samples, 21 ms) is the only difference.
// Had the video B-frames, the first presentation time would sit a frame or two after the tfdt and
// MPEGTS would have to carry that composition offset.
export const ASSET_TIMELINE_MPEGTS = 0;

/** The X-TIMESTAMP-MAP header line of every segment. */
export const timestampMapLine = (mpegts = ASSET_TIMELINE_MPEGTS): string => `X-TIMESTAMP-MAP=MPEGTS:${mpegts},LOCAL:00:00:00.000`;

/** Where each segment starts and ends on the asset timeline; the last one runs on for ever, so cues past the media's end are kept. */
export const segmentSpans = (durations: readonly number[]): { start: number; end: number }[] => {
  let start = 0;
  return durations.map((duration, index) => {
    const end = index === durations.length - 1 ? Number.POSITIVE_INFINITY : start + duration;
    const span = { start, end };
    start += duration;
    return span;
  });
};

/** The cues overlapping [start, end); `cues` sorted by start. */
export const cuesInSpan = <T extends Cue>(cues: readonly T[], { start, end }: { start: number; end: number }): T[] => {
  const found: T[] = [];
  for (const cue of cues) {
    if (cue.start >= end) break;
    if (cue.end > start) found.push(cue);
  }
  return found;
};

/** The WebVTT text of segment `index` of a rendition whose segments last `durations`; null past the last one. */
export const webVttSegment = ({ cues, durations, index }: { cues: readonly Cue[]; durations: readonly number[]; index: number }): string | null => {
  const span = segmentSpans(durations)[index];
  if (!span) return null;
  return renderWebVtt(cuesInSpan(cues, span), { header: [timestampMapLine()] });
};
