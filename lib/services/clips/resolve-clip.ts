import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import {
  MIN_CLIP_SECONDS,
  type AssetSettingsBody,
  type ClipSettings,
  type EncodingTier,
  type MaxResolutionTier,
  type NormalizedAssetSettings,
  type StoredInput,
  toStoredInput,
} from '../../schemas/asset-settings';

// A clip (`inputs[0].url = mux://assets/{id}`) is checked against its source when it is created:
// the source must exist and be ready, and the range must lie within it. A clip is `smart`
// (video_quality `plus`), as Mux makes every clip, whatever its source's tier and a `basic` asked
// for: the clip is what gets shared, and a `baseline` source's clip would otherwise be capped at its
// reduced ladder. Only a clip request that itself asks for `premium` (video_quality or
// encoding_tier) gets `premium`; a `premium` source alone does not. It inherits the source's
// resolution tier unless the request names its own, and (unless `copy_overlays: false`) the
// source's watermark inputs, which its ingest then burns in too.

const DURATION_TOLERANCE_SECONDS = 0.001;
const CLIP_ENCODING_TIER: EncodingTier = 'smart';

/** The clip's tier: `premium` when the request asks for it (normalizeAssetSettings read either name), else `smart`. */
const clipEncodingTier = (requested: EncodingTier): EncodingTier => (requested === 'premium' ? 'premium' : CLIP_ENCODING_TIER);

const invalid = (message: string) => new ApiError('invalid_parameters', message);

export const resolveClip = async (
  body: AssetSettingsBody,
  settings: NormalizedAssetSettings,
  clip: ClipSettings,
): Promise<{ settings: NormalizedAssetSettings; inputs: StoredInput[] }> => {
  const source = await getDb().asset.findUnique({ where: { id: clip.sourceAssetId } });
  if (!source) throw invalid(`inputs[0].url: source asset ${clip.sourceAssetId} does not exist`);
  if (source.status !== 'ready' || source.durationSeconds === null) {
    throw invalid(`inputs[0].url: source asset ${clip.sourceAssetId} is not ready (status ${source.status})`);
  }
  const duration = source.durationSeconds;
  const start = clip.startTime ?? 0;
  const end = clip.endTime ?? duration;
  if (start >= duration) throw invalid(`inputs[0].start_time: ${start} is not within the source asset (${duration} s long)`);
  if (end > duration + DURATION_TOLERANCE_SECONDS) {
    throw invalid(`inputs[0].end_time: ${end} is past the end of the source asset (${duration} s long)`);
  }
  if (Math.min(end, duration) - start < MIN_CLIP_SECONDS) throw invalid(`inputs: a clip must be at least ${MIN_CLIP_SECONDS} s long`);

  const inherited: NormalizedAssetSettings = {
    ...settings,
    encodingTier: clipEncodingTier(settings.encodingTier),
    maxResolutionTier: body.max_resolution_tier ?? (source.maxResolutionTier as MaxResolutionTier),
  };
  const [primary] = settings.inputs;
  // Already in stored (wire) form: copied as they are.
  const sourceOverlays = settings.copyOverlays
    ? (JSON.parse(source.inputsJson) as StoredInput[]).filter((input) => input.overlay_settings !== undefined)
    : [];
  return {
    settings: inherited,
    inputs: [
      toStoredInput({ ...primary, start_time: start, end_time: Math.min(end, duration) }),
      // The source's watermarks first: the clip's own stack on top of them.
      ...sourceOverlays,
      ...settings.inputs.slice(1).map(toStoredInput),
    ],
  };
};
