import { readdir, rm } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { audioRenditionName, hlsDirectory, renditionDirectory } from '../../storage/asset-files';
import { audioRenditionsEncoding, stopAudioEncodes } from './audio-track';
import { PRIMARY_AUDIO_RENDITION } from './audio-renditions';

// After an asset's tracks changed (on the node that changed them, and on every other one): the
// encodes of audio tracks that were deleted stop, and their renditions leave this node's disk, so
// nothing of a deleted track is written or kept after the DELETE answered. Nothing is read from the
// database unless this node encodes or holds an audio rendition of the asset besides the primary.

const isOtherAudioRendition = (name: string) => name.startsWith(`${PRIMARY_AUDIO_RENDITION}-`);

export const forgetDeletedAudioTracks = async (assetId: string): Promise<void> => {
  const dataDir = getEnv().dataDir;
  const encoding = audioRenditionsEncoding(assetId).filter(isOtherAudioRendition);
  const stored = (await readdir(hlsDirectory(dataDir, assetId)).catch(() => [] as string[])).filter(isOtherAudioRendition);
  if (encoding.length === 0 && stored.length === 0) return;
  const tracks = await getDb().track.findMany({ where: { assetId, type: 'audio' }, select: { id: true, primary: true } });
  const existing = new Set(tracks.map(audioRenditionName));
  await stopAudioEncodes(assetId, encoding.filter((name) => !existing.has(name)));
  for (const name of stored.filter((candidate) => !existing.has(candidate))) {
    const folder = renditionDirectory(dataDir, assetId, name);
    await rm(folder, { recursive: true, force: true, maxRetries: 3 }).catch((error: unknown) =>
      getLogger().warn({ err: error, folder }, 'removing a deleted audio track’s rendition failed'),
    );
  }
};
