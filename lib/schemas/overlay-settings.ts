import { z } from 'zod';
import type { OverlayLength, OverlaySettings } from '../media/overlay/overlay-settings';

// A watermark's `overlay_settings` as Mux defines them: sizes and margins are strings, "<n>%" of
// the picture or "<n>px" of a picture scaled to fit 1920×1080 (1080×1920 when portrait); opacity
// is a percentage. Parsed once here so every encode and image reads the same numbers.

const LENGTH = /^(-?\d+(?:\.\d+)?)(%|px)$/;
const PERCENT = /^(\d+(?:\.\d+)?)%$/;

const length = z
  .string()
  .regex(LENGTH, { error: 'must be a string like "10%" or "80px"' })
  .transform((text): OverlayLength => {
    const [, value, unit] = LENGTH.exec(text)!;
    return { value: Number(value), unit: unit as OverlayLength['unit'] };
  });

const size = length.refine((parsed) => parsed.value > 0, { error: 'must be greater than 0' });

export const overlaySettingsSchema = z
  .object({
    vertical_align: z.enum(['top', 'middle', 'bottom']).default('top'),
    vertical_margin: length.optional(),
    horizontal_align: z.enum(['left', 'center', 'right']).default('left'),
    horizontal_margin: length.optional(),
    width: size.optional(),
    height: size.optional(),
    opacity: z
      .string()
      .regex(PERCENT, { error: 'must be a percentage like "90%"' })
      .transform((text) => Number(PERCENT.exec(text)![1]) / 100)
      .refine((opacity) => opacity <= 1, { error: 'must be at most 100%' })
      .optional(),
  })
  .strict() satisfies z.ZodType<OverlaySettings, unknown>;

/** One watermark of an asset: the image input and where it goes. */
export type Overlay = { url: string; settings: OverlaySettings };

const formatLength = (length: OverlayLength | undefined) => length && `${length.value}${length.unit}`;

/**
 * Parsed settings back in Mux's wire form (strings), as an asset's inputs are stored and echoed:
 * parsing the result again gives the same settings.
 */
export const formatOverlaySettings = (settings: OverlaySettings): Record<string, string> => {
  const wire = {
    vertical_align: settings.vertical_align,
    vertical_margin: formatLength(settings.vertical_margin),
    horizontal_align: settings.horizontal_align,
    horizontal_margin: formatLength(settings.horizontal_margin),
    width: formatLength(settings.width),
    height: formatLength(settings.height),
    opacity: settings.opacity === undefined ? undefined : `${Math.round(settings.opacity * 1e6) / 1e4}%`,
  };
  return Object.fromEntries(Object.entries(wire).filter((entry): entry is [string, string] => entry[1] !== undefined));
};
