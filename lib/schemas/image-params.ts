import type { AnimatedFormat } from '../media/images/image-args';
import type { StillFormat } from '../media/images/render-still';
import type { FitMode, Rotation, ThumbnailRequest } from '../media/images/thumbnail-geometry';

// Query parameters (or, for signed playback IDs, token claims) of the image URLs, validated the way
// Mux documents them. Every problem is reported, each message naming its parameter, and anything
// out of range is a 400 rather than silently clamped. Unknown parameters are ignored.

export type ImageParamSource = Record<string, string | undefined>;
export type Parsed<T> = { ok: true; value: T } | { ok: false; messages: string[] };

export const THUMBNAIL_MAX_SIDE = 4096;
export const ANIMATED_MAX_SIDE = 640;
export const ANIMATED_MAX_FPS = 30;
export const ANIMATED_MIN_SECONDS = 0.25;
export const ANIMATED_MAX_SECONDS = 10;
const ANIMATED_DEFAULT_SECONDS = 5;
const ANIMATED_DEFAULT_FPS = 15;

export type ThumbnailParams = ThumbnailRequest & {
  /** null: the middle of the video. */
  time: number | null;
};

export type AnimatedParams = { start: number; end: number; width: number | null; height: number | null; fps: number };

export type StoryboardParams = { format: StillFormat };

const FIT_MODES: readonly FitMode[] = ['preserve', 'stretch', 'crop', 'smartcrop', 'pad'];
const ROTATIONS: readonly Rotation[] = [0, 90, 180, 270];
const STILL_FORMATS: readonly StillFormat[] = ['jpg', 'png', 'webp'];
const DECIMAL = /^\d+(\.\d+)?$|^\.\d+$/;
const INTEGER = /^\d+$/;

const reader = (source: ImageParamSource) => {
  const messages: string[] = [];
  const raw = (name: string) => {
    const value = source[name];
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    messages,
    seconds(name: string): number | null {
      const value = raw(name);
      if (value === undefined) return null;
      if (!DECIMAL.test(value)) {
        messages.push(`${name} must be a number of seconds, 0 or more`);
        return null;
      }
      return Number(value);
    },
    integer(name: string, min: number, max: number): number | null {
      const value = raw(name);
      if (value === undefined) return null;
      if (!INTEGER.test(value) || Number(value) < min || Number(value) > max) {
        messages.push(`${name} must be a whole number from ${min} to ${max}`);
        return null;
      }
      return Number(value);
    },
    oneOf<T extends string | number>(name: string, allowed: readonly T[], fallback: T): T {
      const value = raw(name);
      if (value === undefined) return fallback;
      const found = allowed.find((option) => String(option) === value);
      if (found === undefined) messages.push(`${name} must be one of ${allowed.join(', ')}`);
      return found ?? fallback;
    },
    flag(name: string): boolean {
      const value = raw(name);
      if (value === undefined) return false;
      if (value === 'true' || value === '1') return true;
      if (value !== 'false' && value !== '0') messages.push(`${name} must be true or false`);
      return false;
    },
    present: (name: string) => raw(name) !== undefined,
  };
};

const result = <T>(messages: string[], value: T): Parsed<T> => (messages.length ? { ok: false, messages } : { ok: true, value });

export const parseThumbnailParams = (source: ImageParamSource): Parsed<ThumbnailParams> => {
  const read = reader(source);
  if (read.present('latest')) read.messages.push('latest is only available for live streams');
  const value: ThumbnailParams = {
    time: read.seconds('time'),
    width: read.integer('width', 1, THUMBNAIL_MAX_SIDE),
    height: read.integer('height', 1, THUMBNAIL_MAX_SIDE),
    fitMode: read.oneOf('fit_mode', FIT_MODES, 'preserve'),
    rotate: read.oneOf('rotate', ROTATIONS, 0),
    flipVertical: read.flag('flip_v'),
    flipHorizontal: read.flag('flip_h'),
  };
  return result(read.messages, value);
};

export const parseAnimatedParams = (source: ImageParamSource): Parsed<AnimatedParams> => {
  const read = reader(source);
  const start = read.seconds('start') ?? 0;
  const end = read.seconds('end') ?? start + ANIMATED_DEFAULT_SECONDS;
  const span = Math.round((end - start) * 1e6) / 1e6;
  if (read.messages.length === 0 && (span < ANIMATED_MIN_SECONDS || span > ANIMATED_MAX_SECONDS)) {
    read.messages.push(`end must be ${ANIMATED_MIN_SECONDS} to ${ANIMATED_MAX_SECONDS} seconds after start (got ${span})`);
  }
  const value: AnimatedParams = {
    start,
    end,
    width: read.integer('width', 1, ANIMATED_MAX_SIDE),
    height: read.integer('height', 1, ANIMATED_MAX_SIDE),
    fps: read.integer('fps', 1, ANIMATED_MAX_FPS) ?? ANIMATED_DEFAULT_FPS,
  };
  return result(read.messages, value);
};

/** storyboard.vtt / storyboard.json: the sprite format their URLs point at. */
export const parseStoryboardParams = (source: ImageParamSource): Parsed<StoryboardParams> => {
  const read = reader(source);
  return result(read.messages, { format: read.oneOf('format', STILL_FORMATS, 'jpg') });
};

/** Token claims as a parameter source: numbers and booleans count as their text. */
export const paramsFromClaims = (claims: Record<string, unknown>): ImageParamSource =>
  Object.fromEntries(
    Object.entries(claims).flatMap(([name, value]) =>
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? [[name, String(value)]] : [],
    ),
  );

export const isAnimatedFormat = (value: string): value is AnimatedFormat => value === 'gif' || value === 'webp';
export const isStillFormat = (value: string): value is StillFormat => (STILL_FORMATS as readonly string[]).includes(value);
