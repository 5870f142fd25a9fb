import { instanceSecrets } from '../../auth/instance-secrets';
import { masterUrlPath } from '../../auth/master-url';
import { getEnv } from '../../env';
import { serializeAsset, type AssetRecord, type Track } from '../../schemas/asset';

// The master's file name follows Mux (mezzanine.mp4, or .m4a for audio-only assets).
export const masterFileName = (tracksJson: string | null): string => {
  const tracks = tracksJson ? (JSON.parse(tracksJson) as Track[]) : [];
  return tracks.some((track) => track.type === 'video') ? 'mezzanine.mp4' : 'mezzanine.m4a';
};

/** The master URLs' signing key, separate in purpose from the playback proofs made with the same secret. */
export const masterSigningKey = (): Buffer => Buffer.from(instanceSecrets(getEnv().dataDir).playbackProofKey, 'base64url');

/** The signed download URL of a ready, unexpired master (on the stream host); else undefined. */
export const masterUrlOf = (asset: AssetRecord, now = Date.now()): string | undefined => {
  if (asset.masterAccess !== 'temporary' || asset.masterStatus !== 'ready' || !asset.masterExpiresAt) return undefined;
  if (asset.masterExpiresAt.getTime() <= now) return undefined;
  const expiresAt = Math.floor(asset.masterExpiresAt.getTime() / 1000);
  return `${getEnv().streamUrl}${masterUrlPath(masterSigningKey(), { assetId: asset.id, fileName: masterFileName(asset.tracksJson), expiresAt })}`;
};

/** An asset in the wire format, with what only the service layer can add (the signed master URL). */
export const assetJson = (asset: AssetRecord) => serializeAsset(asset, { masterUrl: masterUrlOf(asset) });
