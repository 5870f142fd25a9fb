import { describe, expect, it } from 'vitest';
import { intervalsOf, valuesByInterval } from './analytics-intervals';

describe('intervalsOf', () => {
  it('lists every UTC-aligned interval that overlaps the timeframe', () => {
    const start = Date.parse('2026-11-27T10:17:30Z') / 1000;
    const end = Date.parse('2026-11-27T13:05:00Z') / 1000;
    expect(intervalsOf([start, end], 'hour').map((at) => new Date(at).toISOString())).toEqual([
      '2026-11-27T10:00:00.000Z',
      '2026-11-27T11:00:00.000Z',
      '2026-11-27T12:00:00.000Z',
      '2026-11-27T13:00:00.000Z',
    ]);
  });

  it('gives 61 minutes for the last hour and 31 days for the last 30 days', () => {
    const end = Date.parse('2026-11-27T10:17:30Z') / 1000;
    expect(intervalsOf([end - 3600, end], 'minute')).toHaveLength(61);
    expect(intervalsOf([end - 30 * 86_400, end], 'day')).toHaveLength(31);
  });
});

describe('valuesByInterval', () => {
  it('matches rows by instant whatever their ISO spelling', () => {
    const values = valuesByInterval([
      ['2026-11-27T10:00:00Z', 3, 3],
      ['2026-11-27T11:00:00.000Z', null, 0],
    ]);
    expect(values.get(Date.parse('2026-11-27T10:00:00.000Z'))).toBe(3);
    expect(values.get(Date.parse('2026-11-27T11:00:00Z'))).toBeNull();
    expect(values.has(Date.parse('2026-11-27T12:00:00Z'))).toBe(false);
  });
});
