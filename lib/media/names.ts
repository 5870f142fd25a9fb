// Every name an HLS rendition and its files get, on disk and in URLs, on demand and live: made
// here and parsed back here only, so a file is always looked for under the name it was written
// with. The names are the public URLs and the stored layout (assets written by earlier versions,
// players' cached playlists): none of them may change.
//
// A rendition's playlist is `/{PLAYBACK_ID}/{rendition}.m3u8` and its files
// `/{PLAYBACK_ID}/{rendition}/{file}`; on disk the same files sit in `hls/{rendition}/` of the asset
// (lib/storage/asset-files.ts) or in a connection's folder of a broadcast (lib/services/live/live-files.ts).

// The number a name's one capture group holds, or null when the name does not match.
const numberIn = (pattern: RegExp, name: string): number | null => {
  const match = pattern.exec(name);
  return match?.[1] === undefined ? null : Number(match[1]);
};

// --- Renditions -----------------------------------------------------------------------------

/** A video rung, named after its short side: "720p" whether it is 1280x720 or 720x1280. */
export const rungName = (shortSide: number): string => `${shortSide}p`;

const RUNG_NAME = /^(\d+)p$/;

/** The short side a rung's name gives, or null when the name is not a rung's. */
export const shortSideOfRungName = (name: string): number | null => numberIn(RUNG_NAME, name);

// A resolution as the API spells one (`max_resolution` / `min_resolution`, static renditions):
// the name of the rung of that short side, with three or four digits.
const RESOLUTION = /^(\d{3,4})p$/;

export const shortSideOfResolution = (value: string): number | null => numberIn(RESOLUTION, value);

/**
 * The primary audio track's rendition keeps the name `audio` it had before assets had several
 * audio tracks (a live stream's audio-only rendition has it too); every other audio track is
 * `audio-{trackId}`.
 */
export const PRIMARY_AUDIO_RENDITION = 'audio';
const OTHER_AUDIO_PREFIX = `${PRIMARY_AUDIO_RENDITION}-`;

export const audioRenditionName = (track: { id: string; primary: boolean }): string =>
  track.primary ? PRIMARY_AUDIO_RENDITION : `${OTHER_AUDIO_PREFIX}${track.id}`;

export type AudioRenditionName = { primary: true } | { primary: false; trackId: string };

/** Which audio track a rendition name stands for, or null when it is no audio rendition's. */
export const parseAudioRenditionName = (name: string): AudioRenditionName | null => {
  if (name === PRIMARY_AUDIO_RENDITION) return { primary: true };
  if (!name.startsWith(OTHER_AUDIO_PREFIX) || name.length === OTHER_AUDIO_PREFIX.length) return null;
  return { primary: false, trackId: name.slice(OTHER_AUDIO_PREFIX.length) };
};

const SUBTITLES_PREFIX = 'subtitles-';

/** A text track as an HLS subtitles rendition (segmented WebVTT). */
export const subtitlesRenditionName = (trackId: string): string => `${SUBTITLES_PREFIX}${trackId}`;

/** Whether requests for this rendition go to the subtitles (which then look the track up). */
export const isSubtitlesRendition = (name: string): boolean => name.startsWith(SUBTITLES_PREFIX);

/** A live stream's top rung: the source passed through, never re-encoded. */
export const LIVE_SOURCE_RENDITION = 'source';

// --- Files of a rendition ---------------------------------------------------------------------

/** The fMP4 init segment of an on-demand rendition (and of each live connection, on disk). */
export const INIT_FILE = 'init.mp4';

/** Written when every segment of a rendition exists (background rungs, audio tracks); disk only. */
export const RENDITION_COMPLETE_FILE = 'complete.json';

/** Media segment `index` (a live segment's media sequence number) of a rendition. */
export const segmentFileName = (index: number): string => `${index}.m4s`;

const SEGMENT_FILE = /^(\d+)\.m4s$/;

/** The index a media segment's file name gives, or null (init segments, parts, other files). */
export const parseSegmentFileName = (file: string): number | null => numberIn(SEGMENT_FILE, file);

/** Segment `index` of a subtitles rendition: WebVTT cut on the video's segment boundaries. */
export const subtitlesSegmentFileName = (index: number): string => `${index}.vtt`;

const SUBTITLES_SEGMENT_FILE = /^(\d{1,6})\.vtt$/;

export const parseSubtitlesSegmentFileName = (file: string): number | null => numberIn(SUBTITLES_SEGMENT_FILE, file);

// A live rendition's init segment differs per connection of the broadcast (a reconnecting encoder
// may change its parameters), so its URL names the connection; low-latency parts are `{msn}.{part}.m4s`.
export const liveInitFileName = (connection: number): string => `init-${connection}.mp4`;

const LIVE_INIT_FILE = /^init-(\d{1,4})\.mp4$/;

export const parseLiveInitFileName = (file: string): number | null => numberIn(LIVE_INIT_FILE, file);

export const livePartFileName = (msn: number, part: number): string => `${msn}.${part}.m4s`;

const LIVE_PART_FILE = /^(\d{1,6})\.(\d{1,3})\.m4s$/;

export const parseLivePartFileName = (file: string): { msn: number; part: number } | null => {
  const match = LIVE_PART_FILE.exec(file);
  return match?.[1] === undefined || match[2] === undefined ? null : { msn: Number(match[1]), part: Number(match[2]) };
};

// Every file a playback URL may name under a rendition: fMP4 init and media segments, WebVTT
// segments of a subtitles rendition, a live stream's init per connection and low-latency parts.
// Matched on each request before any lookup, so one precompiled test of the raw name.
const RENDITION_FILE = /^(init\.mp4|init-\d{1,4}\.mp4|\d{1,6}\.m4s|\d{1,6}\.\d{1,3}\.m4s|\d{1,6}\.vtt)$/;

export const isRenditionFileName = (file: string): boolean => RENDITION_FILE.test(file);

// --- URIs ---------------------------------------------------------------------------------------

const PLAYLIST_EXTENSION = '.m3u8';

/** A playlist's file name: `{rendition}.m3u8`, and the multivariant playlist `{PLAYBACK_ID}.m3u8`. */
export const playlistFileName = (name: string): string => `${name}${PLAYLIST_EXTENSION}`;

/** The rendition (or playback ID) a playlist's file name stands for, or null when it is no playlist. */
export const parsePlaylistFileName = (file: string): string | null =>
  file.endsWith(PLAYLIST_EXTENSION) ? file.slice(0, -PLAYLIST_EXTENSION.length) : null;

/** A rendition playlist's URI in a multivariant playlist, which is served at `/{PLAYBACK_ID}.m3u8`. */
export const renditionPlaylistUri = (playbackId: string, rendition: string): string => `${playbackId}/${playlistFileName(rendition)}`;

/** A file's URI in its rendition's playlist, which is served beside the rendition's folder. */
export const renditionFileUri = (rendition: string, file: string): string => `${rendition}/${file}`;

// --- A broadcast's folder (live) ----------------------------------------------------------------

/** Each connection of a broadcast (a reconnect starts a new one) writes into `c{connection}/`. */
export const liveConnectionFolder = (connection: number): string => `c${connection}`;

const LIVE_CONNECTION_FOLDER = /^c(\d+)$/;

export const parseLiveConnectionFolder = (name: string): number | null => numberIn(LIVE_CONNECTION_FOLDER, name);

/** One line per segment of the source rendition, written after the segment's file. */
export const LIVE_SEGMENT_INDEX_FILE = 'segments.jsonl';
export const LIVE_CAPTIONS_INDEX_FILE = 'captions.jsonl';

/** What a broadcast's folder holds, written when it starts. */
export const BROADCAST_MANIFEST_FILE = 'broadcast.json';

/** A connection's recorded segments joined behind their init segment, while the recording is finalized. */
export const LIVE_RECORDING_PIECE_FILE = 'recording.mp4';

/** ffmpeg's concat list of the pieces, while the recording is finalized. */
export const LIVE_RECORDING_LIST_FILE = 'recording.txt';
