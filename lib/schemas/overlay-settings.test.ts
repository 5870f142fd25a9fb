import { describe, expect, test } from 'vitest';
import { formatOverlaySettings, overlaySettingsSchema } from './overlay-settings';

describe('formatOverlaySettings', () => {
  test('gives back the wire form, which parses to the same settings', () => {
    const wire = { vertical_align: 'bottom', vertical_margin: '-2.5%', horizontal_align: 'center', horizontal_margin: '80px', width: '10%', height: '33px', opacity: '62.5%' };
    const parsed = overlaySettingsSchema.parse(wire);
    expect(formatOverlaySettings(parsed)).toEqual(wire);
    expect(overlaySettingsSchema.parse(formatOverlaySettings(parsed))).toEqual(parsed);
  });

  test('with the alignment defaults filled in and nothing else invented', () => {
    expect(formatOverlaySettings(overlaySettingsSchema.parse({ width: '5%' }))).toEqual({ vertical_align: 'top', horizontal_align: 'left', width: '5%' });
  });
});
