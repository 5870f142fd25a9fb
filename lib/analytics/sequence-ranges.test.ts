import { expect, test } from 'vitest';
import { addSequence, hasSequence, type SequenceRanges } from './sequence-ranges';

test('ranges join adjacent and overlapping sequence numbers, whatever the order', () => {
  let ranges: SequenceRanges = [];
  for (const sequence of [1, 2, 3, 7, 5, 4, 9, 3]) ranges = addSequence(ranges, sequence);
  expect(ranges).toEqual([
    [1, 5],
    [7, 7],
    [9, 9],
  ]);
  expect(hasSequence(ranges, 4)).toBe(true);
  expect(hasSequence(ranges, 6)).toBe(false);
  ranges = addSequence(ranges, 8);
  ranges = addSequence(ranges, 6);
  expect(ranges).toEqual([[1, 9]]);
});
