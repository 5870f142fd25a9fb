import { rm } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { ApiError, notFound } from '../../errors/api-error';
import { verifyMasterUrl } from '../../auth/master-url';
import { masterFilePath } from '../../storage/asset-files';
import { isStoredHereOrShared } from '../storage/shared-storage';
import { masterFileName, masterSigningKey } from './master-links';

export type MasterFile = { path: string; lastModified: Date; expiresAt: number; audioOnly: boolean };

// GET /master/{assetId}/mezzanine.{mp4,m4a}?expires=…&signature=… on the stream host, with no
// credentials: a bad signature is 403; an expired URL, or one whose master was removed or made
// anew since (its expiry no longer matches), is 410 Gone.
export const getMasterFile = async ({
  assetId,
  fileName,
  expires,
  signature,
}: {
  assetId: string;
  fileName: string;
  expires: string | null;
  signature: string | null;
}): Promise<MasterFile> => {
  const checked = verifyMasterUrl(masterSigningKey(), { assetId, fileName, expires, signature }, Math.floor(Date.now() / 1000));
  if (!checked.ok && checked.reason === 'invalid') throw new ApiError('forbidden', 'The master URL is not valid (bad or missing signature)');
  if (!checked.ok) throw new ApiError('gone', 'The master URL has expired; request master access again');
  const asset = await getDb().asset.findUnique({
    where: { id: assetId },
    select: { masterAccess: true, masterStatus: true, masterExpiresAt: true, tracksJson: true },
  });
  const current =
    asset?.masterAccess === 'temporary' &&
    asset.masterStatus === 'ready' &&
    asset.masterExpiresAt !== null &&
    Math.floor(asset.masterExpiresAt.getTime() / 1000) === Number(expires);
  if (!asset || !current) {
    // With S3, a node other than the one that removed it may still hold a copy from the bucket.
    if (asset?.masterAccess === 'none') await rm(masterFilePath(getEnv().dataDir, assetId, fileName), { force: true });
    throw new ApiError('gone', 'This master is no longer available; request master access again');
  }
  if (fileName !== masterFileName(asset.tracksJson)) throw notFound('Master');
  const path = masterFilePath(getEnv().dataDir, assetId, fileName);
  // With S3 the node that made it may be another: the bucket has it (copied here first).
  if (!(await isStoredHereOrShared(path))) throw notFound('Master');
  return { path, lastModified: asset.masterExpiresAt ?? new Date(0), expiresAt: Number(expires), audioOnly: fileName.endsWith('.m4a') };
};
