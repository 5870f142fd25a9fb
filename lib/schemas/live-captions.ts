import { z } from 'zod';
import { passthroughSchema } from './asset-settings';

// A live stream's `generated_subtitles` (mux-api-2.md §6): captions recognised from the
// broadcast's speech, a `generated_live` text track while live and `generated_live_final` on the
// recording. Mux allows one track, in one of seven languages; this server's recogniser knows
// US English only, so other languages are refused at once rather than captioned badly.

const MUX_LANGUAGES = ['en', 'en-US', 'es', 'fr', 'de', 'pt', 'it'] as const;
const RECOGNISED_LANGUAGES: readonly string[] = ['en', 'en-US'];
const DEFAULT_NAME = 'English (generated)';

const generatedLiveSubtitleSchema = z.object({
  name: z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }).max(255).optional(),
  language_code: z.enum(MUX_LANGUAGES, { error: `must be one of ${MUX_LANGUAGES.join(', ')}` }).optional(),
  passthrough: passthroughSchema.optional(),
  transcription_vocabulary_ids: z.array(z.string(), { error: 'must be an array of ids' }).optional(),
});

export const generatedLiveSubtitlesSchema = z
  .array(generatedLiveSubtitleSchema, { error: 'must be an array of {name?, language_code?, passthrough?}' })
  .max(1, { error: 'At most one subtitle track is allowed' });

export type GeneratedLiveSubtitlesBody = z.infer<typeof generatedLiveSubtitlesSchema>;

/** As stored and returned: every field filled in. */
export type GeneratedLiveSubtitle = { name: string; language_code: string; passthrough?: string };

/** The request as stored JSON (null for none), or the reasons it cannot be had here. */
export const normalizeGeneratedLiveSubtitles = (body: GeneratedLiveSubtitlesBody): { ok: true; json: string | null } | { ok: false; messages: string[] } => {
  const messages: string[] = [];
  const tracks = body.map((track): GeneratedLiveSubtitle => {
    const language = track.language_code ?? 'en';
    if (!RECOGNISED_LANGUAGES.includes(language)) {
      messages.push(`generated_subtitles: language_code "${language}" is not supported by this server's speech recogniser (English only: en, en-US)`);
    }
    if (track.transcription_vocabulary_ids?.length) messages.push('generated_subtitles: transcription_vocabulary_ids are not supported by this server');
    return { name: track.name ?? DEFAULT_NAME, language_code: language, ...(track.passthrough !== undefined && { passthrough: track.passthrough }) };
  });
  if (messages.length > 0) return { ok: false, messages };
  return { ok: true, json: tracks.length > 0 ? JSON.stringify(tracks) : null };
};

export const parseGeneratedLiveSubtitles = (json: string | null): GeneratedLiveSubtitle[] => (json ? (JSON.parse(json) as GeneratedLiveSubtitle[]) : []);

// `embedded_subtitles`: CEA-608 captions the publisher's encoder carries in its H.264 (SEI), on one
// of the four caption channels. They travel with the video, so the live playlists declare them
// (players decode them) and the recording gets them as a `closed_captions` text track.

export const CEA608_CHANNELS = ['cc1', 'cc2', 'cc3', 'cc4'] as const;
export type Cea608Channel = (typeof CEA608_CHANNELS)[number];

const embeddedLiveSubtitleSchema = z.object({
  name: z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }).max(255).optional(),
  language_code: z.string({ error: 'must be a BCP 47 language tag' }).min(2).max(35).optional(),
  language_channel: z.enum(CEA608_CHANNELS, { error: 'must be cc1, cc2, cc3 or cc4' }).optional(),
  passthrough: passthroughSchema.optional(),
});

export const embeddedLiveSubtitlesSchema = z
  .array(embeddedLiveSubtitleSchema, { error: 'must be an array of {name?, language_code?, language_channel?, passthrough?}' })
  .max(CEA608_CHANNELS.length, { error: `At most ${CEA608_CHANNELS.length} caption channels` });

export type EmbeddedLiveSubtitlesBody = z.infer<typeof embeddedLiveSubtitlesSchema>;

export type EmbeddedLiveSubtitle = { name: string; language_code: string; language_channel: Cea608Channel; passthrough?: string };

export const normalizeEmbeddedLiveSubtitles = (
  body: EmbeddedLiveSubtitlesBody,
  nameOf: (languageCode: string) => string,
): { ok: true; json: string | null } | { ok: false; messages: string[] } => {
  const tracks = body.map(
    (track): EmbeddedLiveSubtitle => ({
      name: track.name ?? nameOf(track.language_code ?? 'en'),
      language_code: track.language_code ?? 'en',
      language_channel: track.language_channel ?? 'cc1',
      ...(track.passthrough !== undefined && { passthrough: track.passthrough }),
    }),
  );
  const channels = tracks.map((track) => track.language_channel);
  const repeated = channels.filter((channel, index) => channels.indexOf(channel) !== index);
  if (repeated.length > 0) return { ok: false, messages: [`embedded_subtitles: language_channel ${repeated[0]} is listed twice`] };
  return { ok: true, json: tracks.length > 0 ? JSON.stringify(tracks) : null };
};

export const parseEmbeddedLiveSubtitles = (json: string | null): EmbeddedLiveSubtitle[] => (json ? (JSON.parse(json) as EmbeddedLiveSubtitle[]) : []);
