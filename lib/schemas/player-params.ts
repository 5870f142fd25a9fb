import { z } from 'zod';
import { ADVANCED_RESOLUTIONS } from './static-rendition';

// Query parameters of the embeddable player page (/player/{playback_id}), named as on
// player.mux.com (reference §8.3). Each value is checked on its own: an invalid or unknown one is
// dropped, as if it were absent, so a typo in an embed code costs one setting, not the video.

export type AutoplayMode = true | 'muted' | 'any';

export type PlayerParams = {
  autoplay?: AutoplayMode;
  muted: boolean;
  loop: boolean;
  defaultHiddenCaptions: boolean;
  disableTracking: boolean;
  startTime?: number;
  thumbnailTime?: number;
  playbackToken?: string;
  thumbnailToken?: string;
  storyboardToken?: string;
  accentColor?: string;
  primaryColor?: string;
  secondaryColor?: string;
  title?: string;
  maxResolution?: string;
  minResolution?: string;
  /** `metadata-*` parameters by their full name (`metadata-video-title` …), at most MAX_METADATA. */
  metadata: Record<string, string>;
};

export const MAX_METADATA = 32;

// Booleans are on when present (`?muted`) or `true`, off when absent or `false`.
const flag = (value: string | null): boolean => value !== null && value !== 'false';

const seconds = z.coerce.number().finite().min(0).max(1e7);
const jwt = z.string().max(8192).regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
// Hex, a named colour or a functional notation: what a CSS custom property takes, nothing that
// could end the declaration.
const color = z.string().regex(/^(#[0-9A-Fa-f]{3,8}|[A-Za-z]{3,30}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]{1,60}\))$/);
const text = z.string().trim().min(1).max(512);
const resolution = z.enum(ADVANCED_RESOLUTIONS);
const autoplay = z.enum(['', 'true', 'muted', 'any']).transform((value): AutoplayMode => (value === 'muted' || value === 'any' ? value : true));
const metadataName = /^metadata-[a-z0-9]+(-[a-z0-9]+)*$/;
const metadataValue = z.string().max(1024);

const valid = <T>(schema: z.ZodType<T, unknown>, value: string | null): T | undefined => {
  if (value === null) return undefined;
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};

const first = (query: URLSearchParams, ...names: string[]): string | null => {
  for (const name of names) {
    const value = query.get(name);
    if (value !== null) return value;
  }
  return null;
};

const metadataOf = (query: URLSearchParams): Record<string, string> => {
  const metadata: Record<string, string> = {};
  for (const [name, value] of query) {
    if (Object.keys(metadata).length >= MAX_METADATA) break;
    if (!metadataName.test(name) || name.length > 72 || name in metadata) continue;
    const checked = valid(metadataValue, value);
    if (checked !== undefined) metadata[name] = checked;
  }
  return metadata;
};

export const parsePlayerParams = (query: URLSearchParams): PlayerParams => ({
  autoplay: query.get('autoplay') === 'false' ? undefined : valid(autoplay, query.get('autoplay')),
  muted: flag(query.get('muted')),
  loop: flag(query.get('loop')),
  defaultHiddenCaptions: flag(query.get('default-hidden-captions')),
  disableTracking: flag(query.get('disable-tracking')) || flag(query.get('disable-mux-data')),
  startTime: valid(seconds, query.get('start-time')),
  thumbnailTime: valid(seconds, first(query, 'poster-time', 'thumbnail-time')),
  playbackToken: valid(jwt, query.get('playback-token')),
  thumbnailToken: valid(jwt, query.get('thumbnail-token')),
  storyboardToken: valid(jwt, query.get('storyboard-token')),
  accentColor: valid(color, query.get('accent-color')),
  primaryColor: valid(color, query.get('primary-color')),
  secondaryColor: valid(color, query.get('secondary-color')),
  title: valid(text, first(query, 'title', 'video-title')),
  maxResolution: valid(resolution, query.get('max-resolution')),
  minResolution: valid(resolution, query.get('min-resolution')),
  metadata: metadataOf(query),
});

// GET /oembed (https://oembed.com §2.2): `url` required; `format` json (xml is a 501).
const size = z.coerce.number().int().min(1).max(10_000).optional();
export const oembedQuerySchema = z.object({
  url: z.string().min(1).max(16_384),
  maxwidth: size,
  maxheight: size,
  format: z.enum(['json', 'xml']).default('json'),
});
