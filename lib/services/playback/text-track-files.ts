import { getEnv } from '../../env';
import { notFound } from '../../errors/api-error';
import { textTrackFilePath } from '../../storage/asset-files';
import { isStoredHereOrShared } from '../storage/shared-storage';
import type { PlaybackTrack } from './playback-records';
import { resolvePlayback, type PlaybackAccess, type PlaybackFile, type PlaybackTarget } from './resolve-playback';

// GET /{PLAYBACK_ID}/text/{TRACK_ID}.vtt and .txt: a ready text track of the playback ID's asset,
// as one WebVTT file or as its transcript. Same access as the stream (a signed playback ID needs a
// token with aud "v"). A track that is not ready, deleted or of another asset is a 404, like a
// file that was never there.

/** The ready text track of the target named by `trackId`; 404 otherwise. */
export const readyTextTrack = (target: PlaybackTarget, trackId: string): PlaybackTrack => {
  const track = target.tracks.find((candidate) => candidate.type === 'text' && candidate.id === trackId);
  if (!track) throw notFound('Text track');
  return track;
};

export const getTextTrackFile = async ({
  playbackId,
  trackId,
  extension,
  access,
}: {
  playbackId: string;
  trackId: string;
  extension: 'vtt' | 'txt';
  access: PlaybackAccess;
}): Promise<PlaybackFile> => {
  const target = await resolvePlayback({ playbackId, access });
  readyTextTrack(target, trackId);
  const filePath = textTrackFilePath(getEnv().dataDir, target.assetId, trackId, extension);
  // Stored by another node: copied from the bucket on first request.
  if (!(await isStoredHereOrShared(filePath))) throw notFound('Text track');
  return { path: filePath, cacheability: target.cacheability, lastModified: target.readyAt };
};
