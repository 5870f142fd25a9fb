import { languageName } from '@/lib/schemas/track';
import type { AssetTrackJson, TrackJson } from '../hooks/dashboard-types';

// Words for the tracks panel: what a track is, why it failed, and the API's field-prefixed
// messages ("language_code: must be …") as sentences.

/** An audio or text track with a row of its own (an old asset's probed audio has neither name nor status). */
export const isTrackRow = (track: AssetTrackJson): track is TrackJson => 'name' in track && 'status' in track;

export const languageLabel = (code: string | undefined): string | undefined => {
  if (!code) return undefined;
  if (code === 'auto') return 'Detected language';
  const name = languageName(code);
  return name ? `${name} (${code})` : code;
};

export const channelsLabel = (channels: number | undefined, layout: string | undefined): string | undefined => {
  if (channels === undefined) return undefined;
  const count = `${channels} channel${channels === 1 ? '' : 's'}`;
  return layout ? `${count} (${layout})` : count;
};

const FIELD_LABELS: Record<string, string> = {
  url: 'The URL',
  language_code: 'The language code',
  name: 'The name',
  closed_captions: 'Closed captions',
  type: 'The track type',
};

const sentence = (text: string): string => {
  const trimmed = text.trim();
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
};

/**
 * "language_code: must be a BCP-47 …" → "The language code must be a BCP-47 ….";
 * "url: input URL is not a valid URL" → "Input URL is not a valid URL."; other messages end with a full stop.
 */
export const plainSentence = (message: string): string => {
  const match = /^([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+)*): (.+)$/s.exec(message);
  if (!match) return sentence(message);
  const field = match[1]!.split('.').pop()!;
  const rest = match[2]!;
  const label = FIELD_LABELS[field];
  return label && /^(must|is|was|should)\b/.test(rest) ? sentence(`${label} ${rest}`) : sentence(rest);
};

const failureSummary = (track: TrackJson): string => {
  const type = track.error?.type ?? 'unknown';
  if (track.type === 'text' && track.text_source === 'generated_vod') return 'Keyframe could not generate captions from the audio.';
  if (type === 'download_failed') return 'Keyframe could not download the file at the track’s URL.';
  if (type === 'invalid_input') {
    return track.type === 'text' ? 'Keyframe could not read the file as subtitles (WebVTT or SRT).' : 'Keyframe could not read the file as audio.';
  }
  if (type === 'failed_request') return 'Keyframe could not prepare this track.';
  return `Keyframe could not prepare this track (${type}).`;
};

/** An errored track's reason: a summary in plain words, then the server's own messages. */
export const trackFailureText = (track: TrackJson): { summary: string; details: string[] } | undefined =>
  track.status === 'errored' ? { summary: failureSummary(track), details: (track.error?.messages ?? []).map(plainSentence) } : undefined;

/** Only text tracks and audio tracks other than the primary can be deleted. */
export const canDeleteTrack = (track: TrackJson): boolean => track.type === 'text' || !track.primary;
