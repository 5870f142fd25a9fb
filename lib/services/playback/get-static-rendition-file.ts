import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { ApiError, notFound } from '../../errors/api-error';
import { staticRenditionPath } from '../../storage/asset-files';
import { isStoredHereOrShared } from '../storage/shared-storage';
import { resolvePlayback, type PlaybackAccess, type PlaybackFile } from './resolve-playback';

// An MP4/M4A download under a playback ID: same access rules as the HLS stream (a signed ID needs
// a token with aud "v"); 404 for a file the asset does not have (never requested, deleted,
// skipped or errored), 412 while it is being built. Looked up in the database on each request:
// downloads are few, and a file deleted through the API must stop being served at once.
export const getStaticRenditionFile = async ({ playbackId, name, access }: { playbackId: string; name: string; access: PlaybackAccess }): Promise<PlaybackFile> => {
  const target = await resolvePlayback({ playbackId, access });
  const file = await getDb().staticRendition.findUnique({
    where: { assetId_name: { assetId: target.assetId, name } },
    select: { id: true, status: true, updatedAt: true },
  });
  if (!file || file.status === 'skipped' || file.status === 'errored') throw notFound('Static rendition');
  if (file.status !== 'ready') throw new ApiError('failed_request', `${name} is still being prepared`);
  const filePath = staticRenditionPath(getEnv().dataDir, target.assetId, { id: file.id, name });
  // Built on another node: copied from the bucket on first request.
  if (!(await isStoredHereOrShared(filePath))) throw notFound('Static rendition');
  return { path: filePath, cacheability: target.cacheability, lastModified: file.updatedAt };
};
