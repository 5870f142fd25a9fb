import { SUBTITLES_GROUP, subtitlesMediaLine, type SubtitlesMedia } from '../hls/playlists';

// Live HLS playlist text (RFC 8216bis, draft 16, and Apple's "Enabling Low-Latency HLS"), fMP4
// segments with audio muxed into every rendition.
//
// Version 6: the highest any tag here needs (EXT-X-MAP in a playlist that is not I-frames only);
// the low-latency tags need no particular version (the draft's own LL-HLS example says 6), and
// delta updates (EXT-X-SKIP, version 9) are not offered.
const VERSION = 6;
/** RFC 8216bis, EXT-X-SERVER-CONTROL: HOLD-BACK is at least three target durations. */
const HOLD_BACK_TARGET_DURATIONS = 3;
/** PART-HOLD-BACK must be at least twice PART-TARGET. */
const MIN_PART_HOLD_BACK_PART_TARGETS = 2;
const DEFAULT_KEEP_PARTS_FOR_SEGMENTS = 3;

export type LivePartEntry = { durationSeconds: number; uri: string; independent: boolean };

export type LiveSegmentEntry = {
  msn: number;
  durationSeconds: number;
  uri: string;
  /**
   * EXT-X-MAP is written before the first segment and again wherever it changes (after a
   * reconnect); absent for segments that need none (WebVTT).
   */
  mapUri?: string;
  /** Ingest wall-clock time of the segment's first frame. */
  programDateTime: Date;
  /** First segment after a reconnect. */
  discontinuity: boolean;
  parts?: LivePartEntry[];
};

export type LowLatencyInput = {
  partTargetSeconds: number;
  partHoldBackSeconds: number;
  /** The segment being written: its parts so far. */
  openSegment: { msn: number; mapUri: string; programDateTime: Date; discontinuity: boolean; parts: LivePartEntry[] } | null;
  /** The part that will come next; players may request it ahead and wait for it. */
  preloadHintUri?: string;
  /** The other renditions' latest part, so that a player switching to one needs no extra reload. */
  renditionReports: { uri: string; lastMsn: number; lastPart: number }[];
  /** Parts are listed only for the last N complete segments (default 3), and for the open one. */
  keepPartsForSegments?: number;
};

export type LiveMediaPlaylistInput = {
  /** 'event' keeps every segment from the start (DVR); 'sliding' lists a window. */
  playlistType: 'sliding' | 'event';
  /** The broadcast is over: EXT-X-ENDLIST, and nothing to block on or preload (nor an open segment). */
  ended: boolean;
  targetDurationSeconds: number;
  /** The msn of the first listed segment. */
  mediaSequence: number;
  /** Discontinuities among the segments that have left the window (those listed carry their own tag). */
  discontinuitySequence: number;
  segments: LiveSegmentEntry[];
  /** Present for latency mode `low`: partial segments and blocking reload. */
  lowLatency?: LowLatencyInput;
  /** Default true. */
  includeProgramDateTime?: boolean;
};

export type LiveVariant = {
  uri: string;
  bandwidth: number;
  averageBandwidth?: number;
  codecs: string;
  resolution?: { width: number; height: number };
  frameRate?: number;
};

const formatDuration = (seconds: number) => seconds.toFixed(6);
// Upper bounds (PART-TARGET, hold-backs) are rounded up, so that the written value still bounds.
const formatBound = (seconds: number) => (Math.ceil(Math.round(seconds * 1e6) / 1e3) / 1e3).toFixed(3);

// Quoted attribute values cannot hold a double quote or a line break; URIs here are built by
// Keyframe from ids, so one that does is a bug to surface, not text to repair.
const quoted = (value: string): string => {
  if (/["\r\n]/.test(value)) throw new Error(`Playlist attribute value cannot be quoted: ${JSON.stringify(value)}`);
  return `"${value}"`;
};

const partLine = (part: LivePartEntry) =>
  `#EXT-X-PART:DURATION=${formatDuration(part.durationSeconds)},URI=${quoted(part.uri)}${part.independent ? ',INDEPENDENT=YES' : ''}`;

/**
 * A live media playlist. TARGETDURATION is a whole number of seconds at least as long as every
 * listed segment rounds to (RFC 8216bis, EXT-X-TARGETDURATION), and PART-TARGET at least as long
 * as every listed part: when the publisher's GOP makes segments or parts longer than configured,
 * the spec's "MUST" on those bounds outweighs keeping the announced values constant.
 */
export const renderLiveMediaPlaylist = (input: LiveMediaPlaylistInput): string => {
  const { playlistType, ended, segments, lowLatency, includeProgramDateTime = true } = input;
  const keepParts = lowLatency?.keepPartsForSegments ?? DEFAULT_KEEP_PARTS_FOR_SEGMENTS;
  const partsFrom = segments.length - keepParts;
  const openSegment = ended ? null : (lowLatency?.openSegment ?? null);
  const listedParts = lowLatency
    ? [...segments.flatMap((segment, index) => (index >= partsFrom ? (segment.parts ?? []) : [])), ...(openSegment?.parts ?? [])]
    : [];

  // Rounded as written: a duration printed as 2.500000 rounds to 3 whatever digits followed.
  const roundedDurations = segments.map((segment) => Math.round(Number(formatDuration(segment.durationSeconds))));
  const targetDuration = Math.max(1, Math.ceil(input.targetDurationSeconds), ...roundedDurations);
  const lines = ['#EXTM3U', `#EXT-X-VERSION:${VERSION}`, `#EXT-X-TARGETDURATION:${targetDuration}`];
  if (lowLatency) {
    const partTarget = Math.max(lowLatency.partTargetSeconds, ...listedParts.map((part) => part.durationSeconds));
    const partHoldBack = Math.max(lowLatency.partHoldBackSeconds, MIN_PART_HOLD_BACK_PART_TARGETS * partTarget);
    lines.push(
      `#EXT-X-PART-INF:PART-TARGET=${formatBound(partTarget)}`,
      `#EXT-X-SERVER-CONTROL:${ended ? '' : 'CAN-BLOCK-RELOAD=YES,'}PART-HOLD-BACK=${formatBound(partHoldBack)}`,
    );
  } else {
    lines.push(`#EXT-X-SERVER-CONTROL:HOLD-BACK=${formatBound(HOLD_BACK_TARGET_DURATIONS * targetDuration)}`);
  }
  lines.push(`#EXT-X-MEDIA-SEQUENCE:${input.mediaSequence}`);
  if (input.discontinuitySequence > 0) lines.push(`#EXT-X-DISCONTINUITY-SEQUENCE:${input.discontinuitySequence}`);
  if (playlistType === 'event') lines.push('#EXT-X-PLAYLIST-TYPE:EVENT');
  // Every segment starts with a keyframe: the cut rule of live-segmenter.ts (and WebVTT has none to need).
  lines.push('#EXT-X-INDEPENDENT-SEGMENTS');

  let currentMap: string | null = null;
  const segmentHead = (segment: { mapUri?: string; programDateTime: Date; discontinuity: boolean }) => {
    if (segment.discontinuity) lines.push('#EXT-X-DISCONTINUITY');
    if (segment.mapUri !== undefined && segment.mapUri !== currentMap) {
      lines.push(`#EXT-X-MAP:URI=${quoted(segment.mapUri)}`);
      currentMap = segment.mapUri;
    }
    if (includeProgramDateTime) lines.push(`#EXT-X-PROGRAM-DATE-TIME:${segment.programDateTime.toISOString()}`);
  };

  segments.forEach((segment, index) => {
    segmentHead(segment);
    // A segment's parts precede its EXTINF: they are the same media, listed piecewise.
    if (lowLatency && index >= partsFrom) lines.push(...(segment.parts ?? []).map(partLine));
    lines.push(`#EXTINF:${formatDuration(segment.durationSeconds)},`, segment.uri);
  });

  if (lowLatency && !ended) {
    if (openSegment && openSegment.parts.length > 0) {
      segmentHead(openSegment);
      lines.push(...openSegment.parts.map(partLine));
    }
    if (lowLatency.preloadHintUri !== undefined) lines.push(`#EXT-X-PRELOAD-HINT:TYPE=PART,URI=${quoted(lowLatency.preloadHintUri)}`);
    for (const report of lowLatency.renditionReports) {
      lines.push(`#EXT-X-RENDITION-REPORT:URI=${quoted(report.uri)},LAST-MSN=${report.lastMsn},LAST-PART=${report.lastPart}`);
    }
  }
  if (ended) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
};

/** A CEA-608 channel the video carries in its SEI (RFC 8216bis EXT-X-MEDIA TYPE=CLOSED-CAPTIONS). */
export type ClosedCaptionsMedia = { name: string; language?: string; instreamId: 'CC1' | 'CC2' | 'CC3' | 'CC4' };

const CLOSED_CAPTIONS_GROUP = 'cc';

const closedCaptionsMediaLine = (media: ClosedCaptionsMedia): string =>
  `#EXT-X-MEDIA:${[
    'TYPE=CLOSED-CAPTIONS',
    `GROUP-ID=${quoted(CLOSED_CAPTIONS_GROUP)}`,
    `NAME=${quoted(media.name.replace(/["\r\n]/g, ' '))}`,
    ...(media.language ? [`LANGUAGE=${quoted(media.language)}`] : []),
    'AUTOSELECT=YES',
    'DEFAULT=NO',
    `INSTREAM-ID=${quoted(media.instreamId)}`,
  ].join(',')}`;

/**
 * The live multivariant playlist: one variant per rung, audio muxed in, highest bandwidth first;
 * `subtitles` (generated live captions) as a subtitles group, `closedCaptions` (CEA-608 channels
 * the publisher embeds) as a closed-captions group, each named by every variant.
 */
export const renderLiveMultivariantPlaylist = (
  variants: LiveVariant[],
  { subtitles = [], closedCaptions = [] }: { subtitles?: SubtitlesMedia[]; closedCaptions?: ClosedCaptionsMedia[] } = {},
): string => {
  if (variants.length === 0) throw new Error('A multivariant playlist needs at least one variant');
  const lines = ['#EXTM3U', `#EXT-X-VERSION:${VERSION}`, '#EXT-X-INDEPENDENT-SEGMENTS', ...subtitles.map(subtitlesMediaLine), ...closedCaptions.map(closedCaptionsMediaLine)];
  for (const variant of [...variants].sort((a, b) => b.bandwidth - a.bandwidth)) {
    // No CLOSED-CAPTIONS=NONE, unlike on-demand: a publisher's H.264 may carry CEA-608 captions,
    // which pass through with the source rendition (and x264 keeps them in the encoded ones).
    const attributes = [
      `BANDWIDTH=${Math.round(variant.bandwidth)}`,
      ...(variant.averageBandwidth === undefined ? [] : [`AVERAGE-BANDWIDTH=${Math.round(variant.averageBandwidth)}`]),
      `CODECS=${quoted(variant.codecs)}`,
      ...(variant.resolution ? [`RESOLUTION=${variant.resolution.width}x${variant.resolution.height}`] : []),
      ...(variant.frameRate ? [`FRAME-RATE=${variant.frameRate.toFixed(3)}`] : []),
      ...(subtitles.length > 0 ? [`SUBTITLES=${quoted(SUBTITLES_GROUP)}`] : []),
      ...(closedCaptions.length > 0 ? [`CLOSED-CAPTIONS=${quoted(CLOSED_CAPTIONS_GROUP)}`] : []),
    ];
    lines.push(`#EXT-X-STREAM-INF:${attributes.join(',')}`, variant.uri);
  }
  return `${lines.join('\n')}\n`;
};

const DECIMAL_INTEGER = /^(0|[1-9][0-9]*)$/;

const parseDirective = (value: string | null): number | null | 'invalid' => {
  if (value === null) return null;
  if (!DECIMAL_INTEGER.test(value)) return 'invalid';
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : 'invalid';
};

/**
 * The blocking-reload request of a playlist URL (RFC 8216bis, "Blocking Playlist Reload"): `_HLS_msn=M` waits for
 * segment M, `&_HLS_part=N` for part N of it. null when the request does not block; 'invalid' for
 * a value that is not a decimal integer, or `_HLS_part` without `_HLS_msn` (the server then
 * answers 400 Bad Request).
 */
export const blockingReloadTarget = (query: URLSearchParams): { msn: number; part?: number } | null | 'invalid' => {
  const msn = parseDirective(query.get('_HLS_msn'));
  const part = parseDirective(query.get('_HLS_part'));
  if (msn === 'invalid' || part === 'invalid') return 'invalid';
  if (msn === null) return part === null ? null : 'invalid';
  return part === null ? { msn } : { msn, part };
};
