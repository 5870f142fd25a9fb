import { readFile } from 'node:fs/promises';
import { getEnv } from '../../env';
import { pngSize } from '../../media/overlay/watermark-image';
import type { StoredInput } from '../../schemas/asset-settings';
import { overlaySettingsSchema } from '../../schemas/overlay-settings';
import { publishFile } from '../../storage/atomic-file';
import { isStoredFile, overlayImagePath } from '../../storage/asset-files';
import { shareFile } from '../storage/shared-storage';
import type { AssetErrorType } from './mark-asset-errored';
import type { PlannedOverlay } from '../playback/playback-plan';
import { fetchStillImage } from './fetch-still-image';

// Ingest of an asset's watermarks: every input with `overlay_settings` (the request's own, and for
// a clip the ones copied from its source) is fetched through the same SSRF guard as a video input,
// checked to be a PNG or JPEG of at most 4096×4096, and stored as an RGBA PNG at
// overlays/<n>.png (shared to the bucket with S3, for the nodes that encode). Its size is read back
// from that PNG and kept in the playback plan with the settings, for the layout.

const MAX_IMAGE_BYTES = 64 * 1024 * 1024;
const IMAGE_DOWNLOAD_TIMEOUT_MS = 60_000;

export type FetchedOverlays = { ok: true; overlays: PlannedOverlay[] } | { ok: false; type: AssetErrorType; message: string };

const fail = (type: AssetErrorType, field: string, message: string): FetchedOverlays => ({ ok: false, type, message: `${field}: ${message}` });

export const fetchOverlays = async ({
  assetId,
  inputsJson,
  signal,
}: {
  assetId: string;
  inputsJson: string;
  signal: AbortSignal;
}): Promise<FetchedOverlays> => {
  const env = getEnv();
  const inputs = JSON.parse(inputsJson) as StoredInput[];
  const overlays: PlannedOverlay[] = [];
  for (const [index, input] of inputs.entries()) {
    if (!input.overlay_settings) continue;
    const field = `inputs[${index}]`;
    const parsed = overlaySettingsSchema.safeParse(input.overlay_settings);
    if (!parsed.success || !input.url) return fail('invalid_input', field, 'the watermark settings are not valid');
    const target = overlayImagePath(env.dataDir, assetId, overlays.length);
    // A resumed ingest keeps what an earlier attempt stored.
    const size = (await isStoredFile(target)) ? pngSize(await readFile(target)) : null;
    if (size) {
      overlays.push({ ...size, settings: parsed.data });
      continue;
    }
    const fetched = await fetchOne({ url: input.url, target, signal });
    if (!fetched.ok) return fail(fetched.type, field, fetched.message);
    overlays.push({ ...fetched.size, settings: parsed.data });
  }
  return { ok: true, overlays };
};

type FetchedImage = { ok: true; size: { width: number; height: number } } | { ok: false; type: AssetErrorType; message: string };

const fetchOne = async ({ url, target, signal }: { url: string; target: string; signal: AbortSignal }): Promise<FetchedImage> => {
  const fetched = await fetchStillImage({ url, workPath: `${target}.download`, subject: 'the watermark', maxBytes: MAX_IMAGE_BYTES, timeoutMs: IMAGE_DOWNLOAD_TIMEOUT_MS, signal });
  if (!fetched.ok) return { ok: false, type: fetched.problem === 'download' ? 'download_failed' : 'invalid_input', message: fetched.message };
  await publishFile(target, fetched.png);
  await shareFile(target, fetched.png);
  return { ok: true, size: fetched.size };
};
