import { describe, expect, test } from 'vitest';
import { backoffDelayMs } from './backoff';

describe('backoffDelayMs', () => {
  test('doubles from 1 s, then holds at 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 100].map(backoffDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 15_000, 30_000, 30_000, 30_000]);
  });
});
