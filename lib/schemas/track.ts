import { z } from 'zod';

// Audio and text tracks as Mux shows them (the video track is described by the probe, in
// Asset.tracksJson). See ../shared/reference/mux-api-2.md §3.

export const trackSelect = {
  id: true,
  type: true,
  status: true,
  name: true,
  languageCode: true,
  primary: true,
  sourceStreamIndex: true,
  durationSeconds: true,
  maxChannels: true,
  maxChannelLayout: true,
  textType: true,
  textSource: true,
  closedCaptions: true,
  passthrough: true,
  errorType: true,
  errorMessagesJson: true,
  createdAt: true,
} as const;

// Tracks in the order they were made; a source's audio streams, made together when the asset
// became ready, in stream order (their rows share a creation time).
export const trackOrderBy = [
  { createdAt: 'asc' as const },
  { sourceStreamIndex: { sort: 'asc' as const, nulls: 'last' as const } },
  { id: 'asc' as const },
];

export type TrackRecord = {
  id: string;
  type: string;
  status: string;
  name: string;
  languageCode: string | null;
  primary: boolean;
  sourceStreamIndex: number | null;
  durationSeconds: number | null;
  maxChannels: number | null;
  maxChannelLayout: string | null;
  textType: string | null;
  textSource: string | null;
  closedCaptions: boolean;
  passthrough: string | null;
  errorType: string | null;
  errorMessagesJson: string | null;
  createdAt: Date;
};

// The order tracks are listed in everywhere (the asset's JSON, the multivariant playlist's audio
// and subtitles groups, the asset page): the video track, the primary audio, the other audio
// tracks, the text tracks (never primary).
const trackKindRank = (track: { type: string; primary?: boolean }): number =>
  track.type === 'video' ? 0 : track.type === 'audio' ? (track.primary ? 1 : 2) : 3;

/**
 * Tracks by kind alone (see trackKindRank); with a stable sort, tracks of a kind keep the order
 * they came in, for lists already in compareTracks order that lack the fields it needs.
 */
export const compareTrackKinds = (a: { type: string; primary?: boolean }, b: { type: string; primary?: boolean }): number =>
  trackKindRank(a) - trackKindRank(b);

type OrderedTrack = { type: string; primary: boolean; sourceStreamIndex: number | null; createdAt?: Date; id: string };

/**
 * The order of track rows: by kind (compareTrackKinds), then the source's streams in their order,
 * then added tracks as they were added (rows made in one statement share their creation time, so
 * it cannot decide alone).
 */
export const compareTracks = (a: OrderedTrack, b: OrderedTrack): number =>
  compareTrackKinds(a, b) ||
  (a.sourceStreamIndex ?? Number.MAX_SAFE_INTEGER) - (b.sourceStreamIndex ?? Number.MAX_SAFE_INTEGER) ||
  (a.createdAt?.getTime() ?? 0) - (b.createdAt?.getTime() ?? 0) ||
  a.id.localeCompare(b.id);

export type TrackStatus = 'preparing' | 'ready' | 'errored';
export type TextSource = 'uploaded' | 'generated_vod';

const round6 = (seconds: number) => Math.round(seconds * 1e6) / 1e6;

export const serializeTrack = (track: TrackRecord) => {
  const errors = track.status === 'errored' && {
    error: { type: track.errorType ?? 'invalid_input', messages: track.errorMessagesJson ? (JSON.parse(track.errorMessagesJson) as string[]) : [] },
  };
  if (track.type === 'text') {
    return {
      id: track.id,
      type: 'text' as const,
      text_type: (track.textType ?? 'subtitles') as 'subtitles',
      text_source: (track.textSource ?? 'uploaded') as TextSource,
      status: track.status as TrackStatus,
      name: track.name,
      ...(track.languageCode !== null && { language_code: track.languageCode }),
      closed_captions: track.closedCaptions,
      ...(track.passthrough !== null && { passthrough: track.passthrough }),
      ...errors,
    };
  }
  return {
    id: track.id,
    type: 'audio' as const,
    ...(track.durationSeconds !== null && { duration: round6(track.durationSeconds) }),
    ...(track.maxChannels !== null && { max_channels: track.maxChannels }),
    ...(track.maxChannelLayout !== null && { max_channel_layout: track.maxChannelLayout }),
    primary: track.primary,
    name: track.name,
    ...(track.languageCode !== null && { language_code: track.languageCode }),
    status: track.status as TrackStatus,
    ...(track.passthrough !== null && { passthrough: track.passthrough }),
    ...errors,
  };
};

export type TrackJson = ReturnType<typeof serializeTrack>;

/**
 * A language tag as BCP-47 writes it: ISO 639-2 stream tags become their two-letter form (`eng` →
 * `en`, `fre` → `fr`); `und` and tags that are not languages give undefined.
 */
export const canonicalLanguageCode = (tag: string | null | undefined): string | undefined => {
  if (!tag || tag === 'und') return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
};

/** The name Mux gives a track without one: the language's English name ("Spanish", "American English"). */
export const languageName = (languageCode: string | null | undefined): string | undefined => {
  const canonical = canonicalLanguageCode(languageCode);
  if (!canonical) return undefined;
  try {
    const name = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' }).of(canonical);
    return name && name !== canonical ? name : undefined;
  } catch {
    return undefined;
  }
};

export const languageCodeSchema = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(35, { error: 'must be at most 35 characters' })
  .refine((value) => canonicalLanguageCode(value) !== undefined, { error: 'must be a BCP-47 language tag such as "en" or "pt-BR"' });

export const trackNameSchema = z.string().min(1, { error: 'must not be empty' }).max(255, { error: 'must be at most 255 characters' });

/** The languages Mux accepts for generated subtitles (what this server's engine can do is narrower; see lib/media/captions). */
export const GENERATED_SUBTITLE_LANGUAGES = ['en', 'es', 'it', 'pt', 'de', 'fr', 'pl', 'ru', 'nl', 'ca', 'tr', 'sv', 'uk', 'no', 'fi', 'sk', 'el', 'cs', 'hr', 'da', 'ro', 'bg', 'auto'] as const;

export const generatedSubtitleSchema = z.object({
  language_code: z.string().optional(),
  name: trackNameSchema.optional(),
  passthrough: z.string().max(255, { error: 'must be at most 255 characters' }).optional(),
});
export type GeneratedSubtitleRequest = z.infer<typeof generatedSubtitleSchema>;

/** `POST /video/v1/assets/{ASSET_ID}/tracks` */
export const createTrackSchema = z.object({
  url: z.string().min(1, { error: 'must not be empty' }),
  type: z.enum(['text', 'audio'], { error: 'must be "text" or "audio"' }),
  text_type: z.enum(['subtitles']).optional(),
  language_code: languageCodeSchema,
  name: trackNameSchema.optional(),
  closed_captions: z.boolean().optional(),
  passthrough: z.string().max(255, { error: 'must be at most 255 characters' }).optional(),
});
export type CreateTrackBody = z.infer<typeof createTrackSchema>;

/** `PATCH /video/v1/assets/{ASSET_ID}/tracks/{TRACK_ID}` */
export const updateTrackSchema = z.object({
  language_code: languageCodeSchema.optional(),
  name: trackNameSchema.optional(),
  closed_captions: z.boolean().optional(),
  passthrough: z.string().max(255, { error: 'must be at most 255 characters' }).optional(),
});
export type UpdateTrackBody = z.infer<typeof updateTrackSchema>;

/** `POST /video/v1/assets/{ASSET_ID}/tracks/{TRACK_ID}/generate-subtitles` */
export const generateSubtitlesSchema = z.object({
  generated_subtitles: z.array(generatedSubtitleSchema).min(1, { error: 'must list at least one track to generate' }).max(10),
});
