import { readFile } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { ApiError, notFound } from '../../errors/api-error';
import { textTrackFilePath } from '../../storage/asset-files';
import { isStoredHereOrShared } from '../storage/shared-storage';

export type TextTrackFile = { name: string; languageCode: string | null; text: string };

/**
 * A ready text track's stored WebVTT or transcript, for the asset page. Read from storage rather
 * than through a playback ID, so it works for signed-only assets and whatever the playback host is.
 */
export const readTextTrack = async ({
  assetId,
  trackId,
  format,
}: {
  assetId: string;
  trackId: string;
  format: 'vtt' | 'txt';
}): Promise<TextTrackFile> => {
  const track = await getDb().track.findFirst({
    where: { id: trackId, assetId },
    select: { type: true, status: true, name: true, languageCode: true },
  });
  if (!track) throw notFound('Track');
  if (track.type !== 'text') throw new ApiError('invalid_parameters', 'Only text tracks have a transcript or a WebVTT file');
  if (track.status !== 'ready') throw new ApiError('invalid_parameters', `The track is ${track.status}; its text is available once it is ready`);
  const filePath = textTrackFilePath(getEnv().dataDir, assetId, trackId, format);
  // With S3 the node that prepared the track may be another: the bucket has it (copied here first).
  if (!(await isStoredHereOrShared(filePath))) throw notFound('Text track file');
  return { name: track.name, languageCode: track.languageCode, text: await readFile(filePath, 'utf8') };
};
