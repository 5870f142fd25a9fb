import { AUDIO_BITRATE, AUDIO_CODECS, type Rung } from './ladder';
import { segmentPeakBitrate } from './peak-bitrate';

// HLS playlist text (RFC 8216), fMP4 segments, so version 7.

const formatDuration = (seconds: number) => seconds.toFixed(6);
const formatFrameRate = (frameRate: number) => frameRate.toFixed(3);

/** One rendition of the audio group (one audio track). */
export type AudioMedia = { uri: string; name: string; language?: string; channels: number; isDefault: boolean };
/** One rendition of the subtitles group (one text track). */
export type SubtitlesMedia = { uri: string; name: string; language?: string; closedCaptions: boolean; isDefault: boolean };

/** RFC 8216 §4.3.3.1: every EXTINF rounded to the nearest integer must not exceed the target. */
export const targetDurationOf = (durations: readonly number[]): number => Math.max(1, ...durations.map((duration) => Math.round(duration)));

export type MultivariantInput = {
  /** `encodedBitrate`: the video bit rate of the rung's segments encoded so far, when known. */
  rungs: { rung: Rung; uri: string; encodedBitrate?: number }[];
  /** The video segments' durations, which bound a capped-CRF rung's peak (see peak-bitrate.ts). */
  videoSegmentDurations: readonly number[];
  /** The audio tracks, the default one first; empty when the asset has no audio. */
  audio: AudioMedia[];
  subtitles?: SubtitlesMedia[];
};

const AUDIO_GROUP = 'audio';
export const SUBTITLES_GROUP = 'subs';
// What Apple's authoring spec asks SDH (closed captions as subtitles) to carry, as Mux writes it.
const SDH_CHARACTERISTICS = 'public.accessibility.transcribes-spoken-dialog,public.accessibility.describes-music-and-sound';

// Attribute values are quoted strings, which cannot hold a double quote or a line break.
const quoted = (value: string) => `"${value.replace(/["\r\n]/g, (character) => (character === '"' ? "'" : ' '))}"`;
const yesNo = (value: boolean) => (value ? 'YES' : 'NO');

const audioMediaLine = (media: AudioMedia) =>
  `#EXT-X-MEDIA:${[
    'TYPE=AUDIO',
    `GROUP-ID="${AUDIO_GROUP}"`,
    `NAME=${quoted(media.name)}`,
    `LANGUAGE=${quoted(media.language ?? 'und')}`,
    `DEFAULT=${yesNo(media.isDefault)}`,
    'AUTOSELECT=YES',
    `CHANNELS="${media.channels}"`,
    `URI=${quoted(media.uri)}`,
  ].join(',')}`;

// Attribute order as Mux writes it (mux-api-2.md §3.5).
export const subtitlesMediaLine = (media: SubtitlesMedia): string =>
  `#EXT-X-MEDIA:${[
    'TYPE=SUBTITLES',
    `GROUP-ID="${SUBTITLES_GROUP}"`,
    ...(media.closedCaptions ? [`CHARACTERISTICS="${SDH_CHARACTERISTICS}"`] : []),
    `NAME=${quoted(media.name)}`,
    'AUTOSELECT=YES',
    `DEFAULT=${yesNo(media.isDefault)}`,
    'FORCED=NO',
    ...(media.language ? [`LANGUAGE=${quoted(media.language)}`] : []),
    `URI=${quoted(media.uri)}`,
  ].join(',')}`;

// BANDWIDTH is the rung's true peak where rate control bounds it, else (plans made before) its
// maxrate. AVERAGE-BANDWIDTH is what its segments were encoded at, once some are; before that a
// capped-CRF rung has none to declare (players then measure it themselves; its nominal bitrate
// would be a guess), and an older rung keeps the average it was encoded to.
const variantBandwidths = (rung: Rung, encodedBitrate: number | undefined, durations: readonly number[], audioBitrate: number): string[] => {
  const peak = segmentPeakBitrate(rung, durations, targetDurationOf(durations)) ?? rung.maxBitrate;
  const average = encodedBitrate ?? (rung.rateControl ? undefined : rung.videoBitrate);
  return [`BANDWIDTH=${peak + audioBitrate}`, ...(average === undefined ? [] : [`AVERAGE-BANDWIDTH=${Math.round(Math.min(average, peak)) + audioBitrate}`])];
};

export const renderMultivariantPlaylist = ({ rungs, audio, subtitles = [], videoSegmentDurations }: MultivariantInput): string => {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:7', '#EXT-X-INDEPENDENT-SEGMENTS'];
  const [defaultAudio] = audio;
  lines.push(...subtitles.map(subtitlesMediaLine));
  const subtitlesAttribute = subtitles.length > 0 ? [`SUBTITLES="${SUBTITLES_GROUP}"`] : [];
  if (rungs.length === 0) {
    if (!defaultAudio) throw new Error('a playlist needs at least one video rung or an audio rendition');
    // Audio-only assets: the default audio rendition is the variant; other tracks are its alternatives.
    if (audio.length > 1) lines.push(...audio.map(audioMediaLine));
    lines.push(
      `#EXT-X-STREAM-INF:${[
        `BANDWIDTH=${AUDIO_BITRATE}`,
        `AVERAGE-BANDWIDTH=${AUDIO_BITRATE}`,
        `CODECS="${AUDIO_CODECS}"`,
        ...(audio.length > 1 ? [`AUDIO="${AUDIO_GROUP}"`] : []),
        ...subtitlesAttribute,
      ].join(',')}`,
      defaultAudio.uri,
    );
    return `${lines.join('\n')}\n`;
  }
  lines.push(...audio.map(audioMediaLine));
  for (const { rung, uri, encodedBitrate } of rungs) {
    const audioBitrate = defaultAudio ? AUDIO_BITRATE : 0;
    const attributes = [
      ...variantBandwidths(rung, encodedBitrate, videoSegmentDurations, audioBitrate),
      `RESOLUTION=${rung.width}x${rung.height}`,
      `CODECS="${defaultAudio ? `${rung.codecs},${AUDIO_CODECS}` : rung.codecs}"`,
      ...(rung.frameRate ? [`FRAME-RATE=${formatFrameRate(rung.frameRate)}`] : []),
      ...(defaultAudio ? [`AUDIO="${AUDIO_GROUP}"`] : []),
      ...subtitlesAttribute,
      'CLOSED-CAPTIONS=NONE',
    ];
    lines.push(`#EXT-X-STREAM-INF:${attributes.join(',')}`, uri);
  }
  return `${lines.join('\n')}\n`;
};

export const renderMediaPlaylist = ({
  initUri,
  segments,
}: {
  /** The fMP4 init segment; none for WebVTT subtitles segments. */
  initUri?: string;
  segments: { duration: number; uri: string }[];
}): string => {
  const targetDuration = targetDurationOf(segments.map((segment) => segment.duration));
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:7',
    `#EXT-X-TARGETDURATION:${targetDuration}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    '#EXT-X-INDEPENDENT-SEGMENTS',
    ...(initUri === undefined ? [] : [`#EXT-X-MAP:URI="${initUri}"`]),
  ];
  for (const segment of segments) lines.push(`#EXTINF:${formatDuration(segment.duration)},`, segment.uri);
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
};
