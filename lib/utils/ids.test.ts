import { describe, expect, test } from 'vitest';
import { generateId, isWellFormedId } from './ids';

describe('ids', () => {
  test('generated ids are 44 base62 characters and unique', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => generateId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{44}$/);
  });

  test.each([
    ['jtxBNF6cjZtMTjoxYFKgvvEiXmYcnl5mzfZPpNqUZ1o', true],
    ['somefakeid', false],
    ['has-dash-xxxxxxxxxxxxxxxxxxxxxxxxxxx', false],
    ['x'.repeat(65), false],
    ['', false],
  ])('isWellFormedId(%s) is %s', (value, expected) => {
    expect(isWellFormedId(value)).toBe(expected);
  });
});
