// The view_sequence_numbers already merged into a view, as sorted, disjoint, inclusive ranges:
// a view's events arrive nearly in order, so this stays a handful of pairs however long it runs.

export type SequenceRanges = Array<[number, number]>;

export const hasSequence = (ranges: SequenceRanges, sequence: number): boolean =>
  ranges.some(([from, to]) => sequence >= from && sequence <= to);

/** `ranges` with `sequence` added (a new array; adjacent ranges are joined). */
export const addSequence = (ranges: SequenceRanges, sequence: number): SequenceRanges => {
  if (hasSequence(ranges, sequence)) return ranges;
  const merged: SequenceRanges = [];
  for (const [from, to] of [...ranges, [sequence, sequence] as [number, number]].sort((a, b) => a[0] - b[0])) {
    const last = merged[merged.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
};
