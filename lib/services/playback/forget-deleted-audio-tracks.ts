import { readdir, rm } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { audioRenditionName, parseAudioRenditionName } from '../../media/names';
import { hlsDirectory, objectKeyOf, renditionDirectory, trackDirectory, tracksDirectory } from '../../storage/asset-files';
import { deleteSharedPrefix, whenAssetTransfersSettled } from '../storage/shared-storage';
import { audioRenditionsEncoding, stopAudioEncodes } from './audio-track';

// After an asset's tracks changed (on the node that changed them, and on every other one): the
// encodes of audio tracks that were deleted stop, and what this node kept of a deleted track (its
// rendition, the file it downloaded or copied from the bucket) leaves its disk, so nothing of a
// deleted track is written or kept after the DELETE answered. With S3, what a stopped encode had
// started uploading lands after the deleting node emptied the rendition's prefix (another node may
// have been encoding the same track as idle work): this node empties it again once its uploads
// settled. Nothing is read from the database unless this node encodes or holds something of a
// track besides the primary audio.

const isOtherAudioRendition = (name: string) => parseAudioRenditionName(name)?.primary === false;

const removeFolder = (folder: string) =>
  rm(folder, { recursive: true, force: true, maxRetries: 3 }).catch((error: unknown) =>
    getLogger().warn({ err: error, folder }, 'removing a deleted track’s files failed'),
  );

export const forgetDeletedAudioTracks = async (assetId: string): Promise<void> => {
  const dataDir = getEnv().dataDir;
  const encoding = audioRenditionsEncoding(assetId).filter(isOtherAudioRendition);
  const renditions = (await readdir(hlsDirectory(dataDir, assetId)).catch(() => [] as string[])).filter(isOtherAudioRendition);
  const trackFolders = await readdir(tracksDirectory(dataDir, assetId)).catch(() => [] as string[]);
  if (encoding.length === 0 && renditions.length === 0 && trackFolders.length === 0) return;
  const tracks = await getDb().track.findMany({ where: { assetId }, select: { id: true, type: true, primary: true } });
  const existing = new Set(tracks.flatMap((track) => (track.type === 'audio' ? [track.id, audioRenditionName(track)] : [track.id])));
  const stopped = encoding.filter((name) => !existing.has(name));
  await stopAudioEncodes(assetId, stopped);
  if (stopped.length > 0) {
    await whenAssetTransfersSettled(assetId);
    for (const name of stopped) await deleteSharedPrefix(`${objectKeyOf(dataDir, renditionDirectory(dataDir, assetId, name))}/`);
  }
  for (const name of renditions.filter((candidate) => !existing.has(candidate))) await removeFolder(renditionDirectory(dataDir, assetId, name));
  for (const trackId of trackFolders.filter((candidate) => !existing.has(candidate))) await removeFolder(trackDirectory(dataDir, assetId, trackId));
};
