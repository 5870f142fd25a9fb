import { readFile } from 'node:fs/promises';
import type { LRUCache } from 'lru-cache';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { ApiError, notFound } from '../../errors/api-error';
import { clipRangeKey, segmentsInRange } from '../../media/hls/instant-clip';
import { renderMediaPlaylist } from '../../media/hls/playlists';
import { parseSubtitlesSegmentFileName, renditionFileUri, subtitlesRenditionName, subtitlesSegmentFileName } from '../../media/names';
import type { Cue } from '../../media/text/cues';
import { parseSubtitles } from '../../media/text/parse-subtitles';
import { webVttSegment } from '../../media/text/segment-webvtt';
import { textTrackFilePath } from '../../storage/asset-files';
import { isStoredHereOrShared } from '../storage/shared-storage';
import { requestedClipRange } from './instant-clips';
import type { PlaybackPlan } from './playback-plan';
import { playbackState } from './playback-state';
import type { PlaybackTrack } from './playback-records';
import { renderOnce } from './rendered-playlists';
import { resolvePlayback, withProof, type PlaybackAccess, type PlaybackTarget, type PlaybackText, type RenditionPlaylistRequest } from './resolve-playback';

// A text track as an HLS subtitles rendition: GET /{PLAYBACK_ID}/subtitles-{TRACK_ID}.m3u8 lists
// WebVTT segments /{PLAYBACK_ID}/subtitles-{TRACK_ID}/{n}.vtt on the same boundaries as the video
// segments (the audio segments for an audio-only asset), so a player fetches the cues of the part
// it plays. Segments are cut on request from the track's stored WebVTT, whose cues are kept in
// memory (bounded) after the first read.
//
// Instant clips: the playlist lists the same segments as the clipped video playlist, and the
// segments keep their asset-timeline cue times and X-TIMESTAMP-MAP; players move the cues by the
// clip's start exactly as they move the video (see segment-webvtt.ts), so the subtitles line up
// with the clipped timeline.

const textTrackOf = (target: PlaybackTarget, rendition: string): PlaybackTrack => {
  const track = target.tracks.find((candidate) => candidate.type === 'text' && subtitlesRenditionName(candidate.id) === rendition);
  if (!track) throw notFound('Rendition');
  return track;
};

const segmentDurations = (plan: PlaybackPlan): number[] =>
  plan.video ? plan.video.segments.map((segment) => segment.duration) : (plan.audio?.segmentDurations ?? []);

// GET /{PLAYBACK_ID}/subtitles-{TRACK_ID}.m3u8
export const getSubtitlesPlaylist = async (request: RenditionPlaylistRequest): Promise<PlaybackText> => {
  const { rendition } = request;
  const target = await resolvePlayback(request);
  const { assetId, plan, proof, cacheability, readyAt } = target;
  const track = textTrackOf(target, rendition);
  const range = requestedClipRange(target, request);
  const durations = segmentDurations(plan);
  const { from, to } = range ? segmentsInRange(durations, range) : { from: 0, to: durations.length };
  if (to === from) throw new ApiError('invalid_parameters', 'asset_start_time/asset_end_time: the range is outside the asset');
  // A track is never changed in place (a deleted one is no longer in `tracks`), so its id names the text.
  const key = `subtitles|${assetId}|${track.id}|${proof ?? ''}|${clipRangeKey(range)}`;
  const text = renderOnce(key, () =>
    renderMediaPlaylist({
      segments: durations.slice(from, to).map((duration, offset) => ({ duration, uri: withProof(renditionFileUri(rendition, subtitlesSegmentFileName(from + offset)), proof) })),
    }),
  );
  return { text, cacheability, lastModified: readyAt };
};

// GET /{PLAYBACK_ID}/subtitles-{TRACK_ID}/{n}.vtt
export const getSubtitlesSegment = async ({
  playbackId,
  rendition,
  file,
  access,
}: {
  playbackId: string;
  rendition: string;
  file: string;
  access: PlaybackAccess;
}): Promise<PlaybackText> => {
  const target = await resolvePlayback({ playbackId, access });
  const track = textTrackOf(target, rendition);
  const index = parseSubtitlesSegmentFileName(file) ?? Number.NaN;
  const durations = segmentDurations(target.plan);
  if (!Number.isInteger(index) || index >= durations.length) throw notFound('Segment');
  const cues = await trackCues(target.assetId, track.id);
  const text = webVttSegment({ cues, durations, index });
  if (text === null) throw notFound('Segment');
  return { text, cacheability: target.cacheability, lastModified: target.readyAt };
};

declare module './playback-state' {
  interface PlaybackState {
    /** Parsed cues of stored tracks, by track; bounded by the size of their text. */
    subtitlesCues: LRUCache<string, Cue[]>;
  }
}

const cueCache = () => playbackState().subtitlesCues;

const trackCues = async (assetId: string, trackId: string): Promise<Cue[]> => {
  const known = cueCache().get(trackId);
  if (known) return known;
  const filePath = textTrackFilePath(getEnv().dataDir, assetId, trackId, 'vtt');
  // Deleted between the lookup and now, or not in the bucket (yet): as if it were not there.
  if (!(await isStoredHereOrShared(filePath))) throw notFound('Segment');
  const text = await readFile(filePath, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('Segment');
    throw error;
  });
  const parsed = parseSubtitles(text);
  // A track with no cues at all (generated captions of silence) is stored as a bare "WEBVTT".
  if (!parsed.ok && text.trim() !== 'WEBVTT') getLogger().warn({ trackId, reason: parsed.reason }, 'a stored text track could not be read');
  const cues = parsed.ok ? parsed.cues : [];
  cueCache().set(trackId, cues);
  return cues;
};
