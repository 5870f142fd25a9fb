import { describe, expect, test } from 'vitest';
import { planJobSlots } from './job-slots';

describe('planJobSlots', () => {
  const ingest = { name: 'ingest', size: () => 3 };
  const encode = { name: 'encode', size: () => 2 };
  const plan = planJobSlots({ ingest: ingest, audio: encode, rungs: encode });

  test('counts each group once, however many kinds share it', () => {
    expect(plan.total).toBe(5);
  });

  test('a kind is full when its group is, also through the other kinds in that group', () => {
    expect(plan.fullKinds([])).toEqual([]);
    expect(plan.fullKinds(['ingest', 'ingest'])).toEqual([]);
    expect(plan.fullKinds(['ingest', 'ingest', 'ingest'])).toEqual(['ingest']);
    expect(plan.fullKinds(['audio'])).toEqual([]);
    expect(plan.fullKinds(['audio', 'rungs'])).toEqual(['audio', 'rungs']);
    expect(plan.fullKinds(['audio', 'rungs', 'ingest', 'ingest', 'ingest']).sort()).toEqual(['audio', 'ingest', 'rungs']);
  });

  test('refuses a group size that is not a positive integer', () => {
    expect(() => planJobSlots({ x: { name: 'x', size: () => 0 } })).toThrow(/positive integer/);
  });
});
