import { AUDIO_BITRATE, AUDIO_CODECS, type Rung } from './ladder';

// HLS playlist text (RFC 8216), fMP4 segments, so version 7.

const formatDuration = (seconds: number) => seconds.toFixed(6);
const formatFrameRate = (frameRate: number) => frameRate.toFixed(3);

export type MultivariantInput = {
  rungs: { rung: Rung; uri: string }[];
  audio: { uri: string; channels: number } | null;
};

export const renderMultivariantPlaylist = ({ rungs, audio }: MultivariantInput): string => {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:7', '#EXT-X-INDEPENDENT-SEGMENTS'];
  if (rungs.length === 0) {
    if (!audio) throw new Error('a playlist needs at least one video rung or an audio rendition');
    // Audio-only assets: the audio rendition is the one variant.
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${AUDIO_BITRATE},AVERAGE-BANDWIDTH=${AUDIO_BITRATE},CODECS="${AUDIO_CODECS}"`,
      audio.uri,
    );
    return `${lines.join('\n')}\n`;
  }
  if (audio) {
    lines.push(
      `#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Default",LANGUAGE="und",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="${audio.channels}",URI="${audio.uri}"`,
    );
  }
  for (const { rung, uri } of rungs) {
    const audioBitrate = audio ? AUDIO_BITRATE : 0;
    const attributes = [
      `BANDWIDTH=${rung.maxBitrate + audioBitrate}`,
      `AVERAGE-BANDWIDTH=${rung.videoBitrate + audioBitrate}`,
      `RESOLUTION=${rung.width}x${rung.height}`,
      `CODECS="${audio ? `${rung.codecs},${AUDIO_CODECS}` : rung.codecs}"`,
      ...(rung.frameRate ? [`FRAME-RATE=${formatFrameRate(rung.frameRate)}`] : []),
      ...(audio ? ['AUDIO="audio"'] : []),
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
  initUri: string;
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
    `#EXT-X-MAP:URI="${initUri}"`,
  ];
  for (const segment of segments) lines.push(`#EXTINF:${formatDuration(segment.duration)},`, segment.uri);
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
};
