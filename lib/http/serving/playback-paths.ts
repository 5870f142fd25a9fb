import { isRenditionFileName, parsePlaylistFileName } from '../../media/names';
import { isStaticRenditionName } from '../../schemas/static-rendition';
import { isWellFormedId } from '../../utils/id-format';

// Which requests belong to the playback host. Matched on the raw path before any framework
// routing, so the shapes are strict: a playback path ends in a playlist, a segment or an image
// name, or sits under a well-formed playback ID (anything else there is a 404 in the API's shape).

export type PlaybackPath =
  | { kind: 'multivariant'; playbackId: string }
  | { kind: 'rendition-playlist'; playbackId: string; rendition: string }
  | { kind: 'rendition-file'; playbackId: string; rendition: string; file: string }
  | { kind: 'image'; playbackId: string; image: ImageKind; extension: string }
  // An MP4/M4A download: highest.mp4, audio.m4a, 720p.mp4, capped-1080p.mp4, low.mp4 …
  | { kind: 'static-rendition'; playbackId: string; name: string }
  // A text track as one WebVTT file, or (generated tracks) its plain transcript.
  | { kind: 'text-track'; playbackId: string; trackId: string; extension: 'vtt' | 'txt' }
  | { kind: 'unknown'; playbackId: string };

export type ImageKind = 'thumbnail' | 'animated' | 'storyboard';

const IMAGE_NAME = /^(thumbnail|animated|storyboard)\.([a-z]+)$/;
const TEXT_TRACK_FILE = /^([A-Za-z0-9]{1,64})\.(vtt|txt)$/;

const decode = (segment: string): string | null => {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
};

export const matchPlaybackPath = (pathname: string): PlaybackPath | null => {
  const raw = pathname.split('/');
  if (raw[0] !== '' || raw.length < 2 || raw.length > 4 || raw[1]?.startsWith('_')) return null;
  const segments = raw.slice(1).map(decode);
  if (segments.some((segment) => segment === null || segment === '')) return null;
  const [first = '', second, third] = segments as string[];

  if (second === undefined) {
    const multivariant = parsePlaylistFileName(first);
    return multivariant === null ? null : { kind: 'multivariant', playbackId: multivariant };
  }
  const playbackId = first;
  const rendition = third === undefined ? parsePlaylistFileName(second) : null;
  if (rendition !== null) return { kind: 'rendition-playlist', playbackId, rendition };
  const image = third === undefined ? IMAGE_NAME.exec(second) : null;
  if (image) return { kind: 'image', playbackId, image: image[1] as ImageKind, extension: image[2] ?? '' };
  if (third === undefined && isStaticRenditionName(second)) return { kind: 'static-rendition', playbackId, name: second };
  const textTrack = second === 'text' && third !== undefined ? TEXT_TRACK_FILE.exec(third) : null;
  if (textTrack) return { kind: 'text-track', playbackId, trackId: textTrack[1]!, extension: textTrack[2] as 'vtt' | 'txt' };
  if (third !== undefined && isRenditionFileName(third)) return { kind: 'rendition-file', playbackId, rendition: second, file: third };
  return isWellFormedId(playbackId) ? { kind: 'unknown', playbackId } : null;
};
