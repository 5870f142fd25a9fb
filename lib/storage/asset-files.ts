import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { INIT_FILE, RENDITION_COMPLETE_FILE, segmentFileName } from '../media/names';

// The one place that decides where an asset's files live under DATA_DIR.

export const isStoredFile = async (filePath: string): Promise<boolean> =>
  (await stat(filePath).catch(() => null))?.isFile() ?? false;

// With S3 storage, an object's key is its path relative to DATA_DIR, "/"-separated: DATA_DIR is
// then this node's cache of the bucket, laid out like the bucket.
export const objectKeyOf = (dataDir: string, filePath: string): string => {
  const relative = path.relative(dataDir, filePath);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) throw new RangeError(`${filePath} is not below ${dataDir}`);
  return relative.split(path.sep).join('/');
};

/** The prefix of every object of an asset. */
export const assetObjectPrefix = (assetId: string): string => `assets/${assetId}/`;

/** The asset a key belongs to, or null (uploads). */
export const assetIdOfObjectKey = (key: string): string | null => /^assets\/([^/]+)\//.exec(key)?.[1] ?? null;

export const assetDirectory = (dataDir: string, assetId: string): string => path.join(dataDir, 'assets', assetId);

export const sourceFilePath = (dataDir: string, assetId: string): string =>
  path.join(assetDirectory(dataDir, assetId), 'source');

// A deleted asset's encodes on other nodes stop a moment after the delete (node events), and one
// may still publish a file into the folder (on a shared DATA_DIR, or here before its cancel lands)
// while it is removed: rmdir then fails with ENOTEMPTY. Node's rm retries those (linear backoff).
export const removeAssetFiles = async (dataDir: string, assetId: string): Promise<void> => {
  await rm(assetDirectory(dataDir, assetId), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
};

// HLS renditions: `hls/<rendition>/init.mp4` and `hls/<rendition>/<index>.m4s`, where the rendition
// is a rung name ("720p") or an audio track's ("audio"); the names are lib/media/names.ts's.
const HLS_FOLDER = 'hls';

export const hlsDirectory = (dataDir: string, assetId: string): string =>
  path.join(assetDirectory(dataDir, assetId), HLS_FOLDER);

export const renditionDirectory = (dataDir: string, assetId: string, rendition: string): string =>
  path.join(hlsDirectory(dataDir, assetId), rendition);

export const initSegmentPath = (dataDir: string, assetId: string, rendition: string): string =>
  path.join(renditionDirectory(dataDir, assetId, rendition), INIT_FILE);

export const mediaSegmentPath = (dataDir: string, assetId: string, rendition: string, index: number): string =>
  path.join(renditionDirectory(dataDir, assetId, rendition), segmentFileName(index));

// Written when every segment of a rendition exists (background rungs, the audio track).
export const renditionCompletePath = (dataDir: string, assetId: string, rendition: string): string =>
  path.join(renditionDirectory(dataDir, assetId, rendition), RENDITION_COMPLETE_FILE);

/**
 * The rendition and file name of an HLS file from its path below DATA_DIR/assets
 * (`<assetId>/hls/<rendition>/<file>`, either separator); null for any other file.
 */
export const hlsFileOfAssetsPath = (relativePath: string): { rendition: string; file: string } | null => {
  const [assetId, folder, rendition, file, ...deeper] = relativePath.split('\\').join('/').split('/');
  if (!assetId || folder !== HLS_FOLDER || !rendition || !file || deeper.length > 0) return null;
  return { rendition, file };
};

// Generated images (thumbnails, animated images, storyboard sprites): `images/<name>`, the name
// derived from the normalised request, so every distinct image is one file. They go with the asset.
export const imagesDirectory = (dataDir: string, assetId: string): string =>
  path.join(assetDirectory(dataDir, assetId), 'images');

export const imageFilePath = (dataDir: string, assetId: string, fileName: string): string =>
  path.join(imagesDirectory(dataDir, assetId), fileName);

// Static renditions (MP4/M4A downloads): `static/<rendition id>-<name>`, e.g. `static/Xy12…-highest.mp4`.
// The id keeps a file deleted and requested again apart from the build it replaces.
export const staticRenditionPath = (dataDir: string, assetId: string, file: { id: string; name: string }): string =>
  path.join(assetDirectory(dataDir, assetId), 'static', `${file.id}-${file.name}`);

// Watermark images, normalised to PNG at ingest: `overlays/<n>.png`, n counting the asset's
// watermark inputs from 0 in stacking order.
export const overlayImagePath = (dataDir: string, assetId: string, index: number): string =>
  path.join(assetDirectory(dataDir, assetId), 'overlays', `${index}.png`);

// The temporary master download (master access): `master/mezzanine.mp4` (`.m4a` for audio only).
export const masterDirectory = (dataDir: string, assetId: string): string => path.join(assetDirectory(dataDir, assetId), 'master');

export const masterFilePath = (dataDir: string, assetId: string, fileName: string): string =>
  path.join(masterDirectory(dataDir, assetId), fileName);

// Tracks: everything of one track sits in one folder, removed with the track.
export const tracksDirectory = (dataDir: string, assetId: string): string => path.join(assetDirectory(dataDir, assetId), 'tracks');

export const trackDirectory = (dataDir: string, assetId: string, trackId: string): string => path.join(tracksDirectory(dataDir, assetId), trackId);

/** A text track's normalised WebVTT (`.vtt`) or plain transcript (`.txt`). */
export const textTrackFilePath = (dataDir: string, assetId: string, trackId: string, extension: 'vtt' | 'txt'): string =>
  path.join(trackDirectory(dataDir, assetId, trackId), `track.${extension}`);

/** An added audio track's downloaded file, before it is encoded. */
export const audioTrackSourcePath = (dataDir: string, assetId: string, trackId: string): string =>
  path.join(trackDirectory(dataDir, assetId, trackId), 'source');
