import { z } from 'zod';

// Create-asset options as Mux accepts them: both the deprecated names (`input`, `playback_policy`,
// `encoding_tier`) and the current ones (`inputs`, `playback_policies`, `video_quality`). The
// schema accepts every value Mux knows; `normalizeAssetSettings` then rejects, with a message
// saying why, the values this server cannot honour yet.

const POLICY_MESSAGE = 'must be "public" or "signed", or an array of them';
const playbackPolicy = z.enum(['public', 'signed', 'drm'], { error: POLICY_MESSAGE });
const policyList = z.union([playbackPolicy, z.array(playbackPolicy)], { error: POLICY_MESSAGE });

const overlaySettings = z.object({}).passthrough();

export const inputSchema = z.object({
  url: z.string().min(1, { error: 'must not be empty' }).optional(),
  type: z.enum(['video', 'audio', 'text']).optional(),
  text_type: z.enum(['subtitles']).optional(),
  language_code: z.string().optional(),
  name: z.string().optional(),
  closed_captions: z.boolean().optional(),
  passthrough: z.string().optional(),
  start_time: z.number().optional(),
  end_time: z.number().optional(),
  overlay_settings: overlaySettings.optional(),
  generated_subtitles: z.array(z.object({}).passthrough()).optional(),
});

export const metaSchema = z.object({
  title: z
    .string()
    .refine((value) => [...value].length <= 512, { error: 'must be at most 512 characters' })
    .optional(),
  creator_id: z.string().max(128, { error: 'must be at most 128 characters' }).optional(),
  external_id: z.string().max(128, { error: 'must be at most 128 characters' }).optional(),
});

export const passthroughSchema = z.string().max(255, { error: 'must be at most 255 characters' });

export const assetSettingsSchema = z.object({
  input: z.union([z.string(), z.array(inputSchema)], { error: 'must be a URL string or an array of input objects' }).optional(),
  inputs: z.array(inputSchema).optional(),
  playback_policy: policyList.optional(),
  playback_policies: policyList.optional(),
  advanced_playback_policies: z
    .array(z.object({ policy: playbackPolicy, drm_configuration_id: z.string().optional() }))
    .optional(),
  encoding_tier: z.enum(['smart', 'baseline', 'premium']).optional(),
  video_quality: z.enum(['basic', 'plus', 'premium']).optional(),
  max_resolution_tier: z.enum(['1080p', '1440p', '2160p']).optional(),
  mp4_support: z.enum(['none', 'standard', 'capped-1080p', 'audio-only', 'audio-only,capped-1080p']).optional(),
  static_renditions: z.array(z.object({ resolution: z.string(), passthrough: z.string().optional() })).optional(),
  master_access: z.enum(['none', 'temporary']).optional(),
  normalize_audio: z.boolean().optional(),
  per_title_encode: z.boolean().optional(),
  copy_overlays: z.boolean().optional(),
  passthrough: passthroughSchema.optional(),
  meta: metaSchema.optional(),
  test: z.boolean().optional(),
});

export type AssetSettingsBody = z.infer<typeof assetSettingsSchema>;
export type AssetInput = z.infer<typeof inputSchema>;

export type EncodingTier = 'smart' | 'baseline';
export type MaxResolutionTier = '1080p' | '1440p' | '2160p';
export type PlaybackPolicy = 'public' | 'signed';

export type NormalizedAssetSettings = {
  inputs: AssetInput[];
  primaryInputUrl: string | undefined;
  playbackPolicies: PlaybackPolicy[];
  encodingTier: EncodingTier;
  maxResolutionTier: MaxResolutionTier;
  passthrough: string | undefined;
  meta: z.infer<typeof metaSchema> | undefined;
  test: boolean;
};

const QUALITY_TO_TIER = { basic: 'baseline', plus: 'smart', premium: 'premium' } as const;

export const videoQualityFor = (tier: EncodingTier): 'basic' | 'plus' => (tier === 'baseline' ? 'basic' : 'plus');

const toList = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

// Returns either the settings or the list of problems (each a complete, user-facing sentence).
export const normalizeAssetSettings = (
  body: AssetSettingsBody,
  // A direct upload's file is the primary input, so its settings must not name a URL.
  { inputUrl }: { inputUrl: 'required' | 'forbidden' },
): { ok: true; settings: NormalizedAssetSettings } | { ok: false; messages: string[] } => {
  const problems: string[] = [];

  if (body.input !== undefined && body.inputs !== undefined) {
    problems.push('Specify either inputs or input (deprecated), not both');
  }
  const inputs: AssetInput[] =
    typeof body.input === 'string' ? [{ url: body.input }] : (body.inputs ?? body.input ?? []);
  const primary = inputs[0];
  if (inputUrl === 'required' && !primary?.url) problems.push('inputs: at least one input with a url is required');
  if (inputUrl === 'forbidden' && primary?.url) {
    problems.push('inputs[0].url: must not be set for a direct upload; the uploaded file is the input');
  }
  if (inputs.length > 1) {
    problems.push('inputs: additional inputs (audio tracks, subtitles, overlays) are not supported yet; send one input');
  }
  if (primary) {
    if (primary.type && primary.type !== 'video') {
      problems.push(`inputs[0].type: "${primary.type}" is only valid for additional tracks; the first input is the video`);
    }
    if (primary.overlay_settings) problems.push('inputs[0].overlay_settings: watermark overlays are not supported yet');
    if (primary.generated_subtitles?.length) {
      problems.push('inputs[0].generated_subtitles: auto-generated captions are not supported yet');
    }
    if (primary.url?.startsWith('mux://')) problems.push('inputs[0].url: clipping from an existing asset (mux://assets/…) is not supported yet');
    if (primary.start_time !== undefined || primary.end_time !== undefined) {
      problems.push('inputs[0].start_time/end_time: clipping is not supported yet');
    }
  }

  const policies = [
    ...toList(body.playback_policies),
    ...toList(body.playback_policy),
    ...(body.advanced_playback_policies ?? []).map((entry) => entry.policy),
  ];
  if (policies.includes('drm')) problems.push('playback_policies: "drm" is not supported by this server');
  const playbackPolicies = [...new Set(policies.filter((policy): policy is PlaybackPolicy => policy !== 'drm'))];

  const tierFromQuality = body.video_quality ? QUALITY_TO_TIER[body.video_quality] : undefined;
  if (body.encoding_tier && tierFromQuality && body.encoding_tier !== tierFromQuality) {
    problems.push(
      `encoding_tier "${body.encoding_tier}" and video_quality "${body.video_quality}" disagree; send only video_quality`,
    );
  }
  const requestedTier = tierFromQuality ?? body.encoding_tier ?? 'smart';
  if (requestedTier === 'premium') problems.push('video_quality: "premium" is not supported by this server; use "plus" or "basic"');
  const encodingTier: EncodingTier = requestedTier === 'baseline' ? 'baseline' : 'smart';
  const maxResolutionTier = body.max_resolution_tier ?? '1080p';

  if (encodingTier === 'baseline' && maxResolutionTier !== '1080p') {
    problems.push(
      `max_resolution_tier: ${maxResolutionTier} is not available with video_quality "basic" (encoding_tier "baseline"), which is limited to 1080p`,
    );
  }
  if (body.mp4_support && body.mp4_support !== 'none') {
    problems.push(
      encodingTier === 'baseline'
        ? `mp4_support: MP4 renditions are not available with video_quality "basic" (encoding_tier "baseline")`
        : `mp4_support: "${body.mp4_support}" is not supported yet; MP4 renditions are not implemented`,
    );
  }
  if (body.static_renditions?.length) problems.push('static_renditions: MP4 renditions are not supported yet');
  if (body.master_access === 'temporary') problems.push('master_access: "temporary" is not supported yet');
  if (body.normalize_audio) problems.push('normalize_audio: audio normalisation is not supported yet');
  if (body.per_title_encode) problems.push('per_title_encode: per-title encoding is not supported');

  if (problems.length > 0) return { ok: false, messages: problems };
  return {
    ok: true,
    settings: {
      inputs,
      primaryInputUrl: primary?.url,
      playbackPolicies,
      encodingTier,
      maxResolutionTier,
      passthrough: body.passthrough,
      meta: body.meta,
      test: body.test ?? false,
    },
  };
};
