import { z } from 'zod';
import type { EncodingTier, MaxResolutionTier } from '../media/encoding-tiers';
import { formatOverlaySettings, overlaySettingsSchema, type Overlay } from './overlay-settings';
import { canonicalLanguageCode, generatedSubtitleSchema, GENERATED_SUBTITLE_LANGUAGES } from './track';
import {
  MP4_SUPPORT_VALUES,
  STATIC_RESOLUTIONS,
  isAdvancedResolution,
  type Mp4Support,
  type StaticRenditionRequest,
} from './static-rendition';

// Create-asset options as Mux accepts them: both the deprecated names (`input`, `playback_policy`,
// `encoding_tier`) and the current ones (`inputs`, `playback_policies`, `video_quality`). The
// schema accepts every value Mux knows; `normalizeAssetSettings` then rejects, with a message
// saying why, the values this server cannot honour yet.

const POLICY_MESSAGE = 'must be "public" or "signed", or an array of them';
const playbackPolicy = z.enum(['public', 'signed', 'drm'], { error: POLICY_MESSAGE });
const policyList = z.union([playbackPolicy, z.array(playbackPolicy)], { error: POLICY_MESSAGE });

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
  overlay_settings: overlaySettingsSchema.optional(),
  generated_subtitles: z.array(generatedSubtitleSchema).optional(),
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
  mp4_support: z.enum(MP4_SUPPORT_VALUES).optional(),
  static_renditions: z
    .array(z.object({ resolution: z.enum(STATIC_RESOLUTIONS), passthrough: z.string().max(255).optional() }))
    .optional(),
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

// Declared with the ladder they shape; here too for the dashboard, which may not import lib/media.
export type { EncodingTier, MaxResolutionTier };
export type PlaybackPolicy = 'public' | 'signed';
export type VideoQuality = 'basic' | 'plus' | 'premium';

export type NormalizedAssetSettings = {
  inputs: AssetInput[];
  primaryInputUrl: string | undefined;
  playbackPolicies: PlaybackPolicy[];
  encodingTier: EncodingTier;
  maxResolutionTier: MaxResolutionTier;
  passthrough: string | undefined;
  meta: z.infer<typeof metaSchema> | undefined;
  test: boolean;
  mp4Support: Mp4Support;
  staticRenditions: StaticRenditionRequest[];
  masterAccess: 'none' | 'temporary';
  /** Set when the input is `mux://assets/{id}`: the new asset is cut from that asset. */
  clip: ClipSettings | undefined;
  /** Watermarks: the additional inputs with `overlay_settings`, in order. */
  overlays: Overlay[];
  /** For a clip: whether the source asset's watermarks are burned into it too (Mux's default). */
  copyOverlays: boolean;
};

export type ClipSettings = { sourceAssetId: string; startTime: number | undefined; endTime: number | undefined };

export const MIN_CLIP_SECONDS = 0.5;
const CLIP_URL = /^mux:\/\/assets\/([A-Za-z0-9]+)$/;

const QUALITY_TO_TIER = { basic: 'baseline', plus: 'smart', premium: 'premium' } as const satisfies Record<VideoQuality, EncodingTier>;
const TIER_TO_QUALITY = { baseline: 'basic', smart: 'plus', premium: 'premium' } as const satisfies Record<EncodingTier, VideoQuality>;

export const videoQualityFor = (tier: EncodingTier): VideoQuality => TIER_TO_QUALITY[tier];

const toList = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

type PlaybackPolicyFields = {
  playback_policies?: PlaybackPolicy | 'drm' | Array<PlaybackPolicy | 'drm'>;
  playback_policy?: PlaybackPolicy | 'drm' | Array<PlaybackPolicy | 'drm'>;
  advanced_playback_policies?: Array<{ policy: PlaybackPolicy | 'drm' }>;
};

/** The policies of `playback_policies`, the deprecated `playback_policy` and `advanced_playback_policies`, once each; DRM is a problem. */
export const requestedPlaybackPolicies = (body: PlaybackPolicyFields, problems: string[]): PlaybackPolicy[] => {
  const policies = [
    ...toList(body.playback_policies),
    ...toList(body.playback_policy),
    ...(body.advanced_playback_policies ?? []).map((entry) => entry.policy),
  ];
  if (policies.includes('drm')) problems.push('playback_policies: "drm" is not supported by this server');
  return [...new Set(policies.filter((policy): policy is PlaybackPolicy => policy !== 'drm'))];
};

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
  // A direct upload's settings may list only additional inputs (watermarks, tracks): the uploaded file is the video.
  const primaryIndex = inputUrl === 'forbidden' && inputs[0] && isAdditionalInput(inputs[0]) ? -1 : 0;
  const primary = primaryIndex === 0 ? inputs[0] : undefined;
  if (inputUrl === 'required' && !primary?.url) problems.push('inputs: at least one input with a url is required');
  if (inputUrl === 'forbidden' && primary?.url) {
    problems.push('inputs[0].url: must not be set for a direct upload; the uploaded file is the input');
  }
  const overlays: Overlay[] = [];
  inputs.forEach((input, index) => {
    if (index === primaryIndex) return;
    if (input.type === 'audio' || input.type === 'text') {
      problems.push(...additionalTrackProblems(input, index));
    } else if (!input.overlay_settings) {
      problems.push(
        `inputs[${index}]: an additional input must be a watermark (overlay_settings), an audio track (type "audio") or subtitles (type "text")`,
      );
    } else if (!input.url) problems.push(`inputs[${index}].url: a watermark input needs the URL of a PNG or JPEG image`);
    else overlays.push({ url: input.url, settings: input.overlay_settings });
    if (input.generated_subtitles?.length) problems.push(`inputs[${index}].generated_subtitles: only applies to the first input`);
    if (input.start_time !== undefined || input.end_time !== undefined) {
      problems.push(`inputs[${index}].start_time/end_time: only apply to the first input, when it is mux://assets/{asset_id}`);
    }
  });
  let clip: ClipSettings | undefined;
  if (primary) {
    if (primary.type && primary.type !== 'video') {
      problems.push(`inputs[0].type: "${primary.type}" is only valid for additional tracks; the first input is the video`);
    }
    if (primary.overlay_settings) {
      problems.push('inputs[0].overlay_settings: a watermark goes on an additional input (the image), not on the video input');
    }
    problems.push(...generatedSubtitleProblems(primary.generated_subtitles ?? [], 'inputs[0].generated_subtitles'));
    if (primary.language_code !== undefined && canonicalLanguageCode(primary.language_code) === undefined) {
      problems.push('inputs[0].language_code: must be a BCP-47 language tag such as "en" or "pt-BR"');
    }
    const clipSource = primary.url?.startsWith('mux://') ? CLIP_URL.exec(primary.url) : null;
    if (primary.url?.startsWith('mux://') && !clipSource) {
      problems.push('inputs[0].url: a clip source must be written mux://assets/{asset_id}');
    }
    const { start_time: startTime, end_time: endTime } = primary;
    if (clipSource) {
      clip = { sourceAssetId: clipSource[1]!, startTime, endTime };
      if (startTime !== undefined && startTime < 0) problems.push('inputs[0].start_time: must not be negative');
      if (endTime !== undefined && endTime <= (startTime ?? 0)) problems.push('inputs[0].end_time: must be greater than start_time');
      else if (endTime !== undefined && endTime - (startTime ?? 0) < MIN_CLIP_SECONDS) {
        problems.push(`inputs[0].end_time: a clip must be at least ${MIN_CLIP_SECONDS} s long`);
      }
    } else if (startTime !== undefined || endTime !== undefined) {
      problems.push('inputs[0].start_time/end_time: only apply when inputs[0].url is mux://assets/{asset_id} (a clip)');
    }
  }

  const playbackPolicies = requestedPlaybackPolicies(body, problems);

  const tierFromQuality = body.video_quality ? QUALITY_TO_TIER[body.video_quality] : undefined;
  if (body.encoding_tier && tierFromQuality && body.encoding_tier !== tierFromQuality) {
    problems.push(
      `encoding_tier "${body.encoding_tier}" and video_quality "${body.video_quality}" disagree; send only video_quality`,
    );
  }
  // `premium` has everything `plus` has (only `basic` is limited below); its ladder aims higher.
  const encodingTier: EncodingTier = tierFromQuality ?? body.encoding_tier ?? 'smart';
  const maxResolutionTier = body.max_resolution_tier ?? '1080p';

  if (encodingTier === 'baseline' && maxResolutionTier !== '1080p') {
    problems.push(
      `max_resolution_tier: ${maxResolutionTier} is not available with video_quality "basic" (encoding_tier "baseline"), which is limited to 1080p`,
    );
  }
  const mp4Support = body.mp4_support ?? 'none';
  const staticRenditions = body.static_renditions ?? [];
  if (mp4Support !== 'none' && staticRenditions.length > 0) {
    problems.push('mp4_support and static_renditions cannot be used together; use static_renditions (mp4_support is deprecated)');
  }
  if (encodingTier === 'baseline' && (mp4Support !== 'none' || staticRenditions.length > 0)) {
    problems.push(
      `${mp4Support !== 'none' ? 'mp4_support' : 'static_renditions'}: MP4 renditions are not available with video_quality "basic" (encoding_tier "baseline"); use video_quality "plus"`,
    );
  }
  problems.push(...staticRenditionProblems(staticRenditions));
  if (encodingTier === 'baseline') {
    if (inputs.some((input) => input.type === 'audio')) {
      problems.push('inputs: additional audio tracks are available with video_quality "plus" or "premium" only, not "basic" (encoding_tier "baseline")');
    }
    if (primary?.generated_subtitles?.length) {
      problems.push('inputs[0].generated_subtitles: auto-generated captions are available with video_quality "plus" or "premium" only, not "basic" (encoding_tier "baseline")');
    }
  }
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
      mp4Support,
      staticRenditions,
      masterAccess: body.master_access ?? 'none',
      clip,
      overlays,
      copyOverlays: body.copy_overlays ?? true,
    },
  };
};

const additionalTrackProblems = (input: AssetInput, index: number): string[] => {
  const problems: string[] = [];
  const kind = input.type === 'audio' ? 'an audio track input' : 'a subtitle input';
  if (!input.url) problems.push(`inputs[${index}].url: ${kind} needs the URL of its file`);
  if (input.overlay_settings) problems.push(`inputs[${index}].overlay_settings: only applies to watermark inputs`);
  if (input.language_code === undefined) problems.push(`inputs[${index}].language_code: is required for ${kind}`);
  else if (canonicalLanguageCode(input.language_code) === undefined) {
    problems.push(`inputs[${index}].language_code: must be a BCP-47 language tag such as "en" or "pt-BR"`);
  }
  if (input.type === 'audio' && (input.text_type !== undefined || input.closed_captions !== undefined)) {
    problems.push(`inputs[${index}]: text_type and closed_captions only apply to subtitle inputs (type "text")`);
  }
  if (input.name !== undefined && input.name.trim() === '') problems.push(`inputs[${index}].name: must not be empty`);
  if (input.passthrough !== undefined && input.passthrough.length > 255) problems.push(`inputs[${index}].passthrough: must be at most 255 characters`);
  return problems;
};

/** Why a list of generated_subtitles cannot be honoured (empty when it can). */
export const generatedSubtitleProblems = (requests: Array<{ language_code?: string }>, field: string): string[] =>
  requests.flatMap((request, index) =>
    request.language_code !== undefined && !(GENERATED_SUBTITLE_LANGUAGES as readonly string[]).includes(request.language_code)
      ? [`${field}[${index}].language_code: must be one of ${GENERATED_SUBTITLE_LANGUAGES.join(', ')}`]
      : [],
  );

/** Why a list of requested static renditions cannot be honoured (empty when it can). */
export const staticRenditionProblems = (requests: StaticRenditionRequest[], existing: string[] = []): string[] => {
  const problems: string[] = [];
  const resolutions = [...existing, ...requests.map((request) => request.resolution)];
  const repeated = resolutions.filter((resolution, index) => resolutions.indexOf(resolution) !== index);
  if (repeated.length > 0) problems.push(`static_renditions: "${repeated[0]}" is requested more than once`);
  if (resolutions.includes('highest') && resolutions.some(isAdvancedResolution)) {
    problems.push('static_renditions: "highest" cannot be combined with specific resolutions (2160p … 270p); "audio-only" can be combined with either');
  }
  return problems;
};

/** An input in its stored and echoed form: `overlay_settings` as the strings Mux accepts (and we parse again). */
export type StoredInput = Omit<AssetInput, 'overlay_settings'> & { overlay_settings?: Record<string, string> };

export const toStoredInput = ({ overlay_settings: overlay, ...input }: AssetInput): StoredInput =>
  overlay ? { ...input, overlay_settings: formatOverlaySettings(overlay) } : input;

/** A watermark or a track file: never the video. */
const isAdditionalInput = (input: Pick<AssetInput, 'type'> & { overlay_settings?: unknown }): boolean => input.overlay_settings !== undefined || input.type === 'audio' || input.type === 'text';

/**
 * A direct upload's inputs as stored on its asset: the uploaded file is the first input, so when
 * the settings list only additional inputs an empty first input stands for it.
 */
export const uploadAssetInputs = (inputs: AssetInput[]): StoredInput[] => {
  const stored = inputs.map(toStoredInput);
  return stored[0] && !isAdditionalInput(stored[0]) ? stored : [{}, ...stored];
};
