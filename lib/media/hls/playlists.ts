import { AUDIO_BITRATE, AUDIO_CODECS, type Rung } from './ladder';

// HLS playlist text (RFC 8216), fMP4 segments, so version 7.

const formatDuration = (seconds: number) => seconds.toFixed(6);
const formatFrameRate = (frameRate: number) => frameRate.toFixed(3);

/** One rendition of the audio group (one audio track). */
export type AudioMedia = { uri: string; name: string; language?: string; channels: number; isDefault: boolean };
/** One rendition of the subtitles group (one text track). */
export type SubtitlesMedia = { uri: string; name: string; language?: string; closedCaptions: boolean; isDefault: boolean };

export type MultivariantInput = {
  rungs: { rung: Rung; uri: string }[];
  /** The audio tracks, the default one first; empty when the asset has no audio. */
  audio: AudioMedia[];
  subtitles?: SubtitlesMedia[];
};

const AUDIO_GROUP = 'audio';
const SUBTITLES_GROUP = 'subs';
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
const subtitlesMediaLine = (media: SubtitlesMedia) =>
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

export const renderMultivariantPlaylist = ({ rungs, audio, subtitles = [] }: MultivariantInput): string => {
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
  for (const { rung, uri } of rungs) {
    const audioBitrate = defaultAudio ? AUDIO_BITRATE : 0;
    const attributes = [
      `BANDWIDTH=${rung.maxBitrate + audioBitrate}`,
      `AVERAGE-BANDWIDTH=${rung.videoBitrate + audioBitrate}`,
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
  // RFC 8216 §4.3.3.1: every EXTINF rounded to the nearest integer must not exceed the target.
  const targetDuration = Math.max(1, ...segments.map((segment) => Math.round(segment.duration)));
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
