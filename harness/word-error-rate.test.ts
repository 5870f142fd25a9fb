import { describe, expect, test } from 'vitest';
import { normalizeWords, wordErrorRate } from './word-error-rate';

describe('normalizeWords', () => {
  test('lower case, no punctuation, hyphens split, apostrophes inside words kept', () => {
    expect(normalizeWords('Hello, World! It’s a well-known "fact"… isn\'t it?')).toEqual(['hello', 'world', "it's", 'a', 'well', 'known', 'fact', "isn't", 'it']);
  });
});

describe('wordErrorRate', () => {
  test('identical texts (up to case and punctuation): 0', () => {
    expect(wordErrorRate('Ask not what your country can do for you.', 'ask not what your country can do for you')).toMatchObject({ rate: 0, referenceWords: 9 });
  });

  test('counts substitutions, deletions and insertions separately', () => {
    const result = wordErrorRate('the quick brown fox jumps', 'the quack brown fox jumps high');
    expect(result).toMatchObject({ substitutions: 1, deletions: 0, insertions: 1, referenceWords: 5, hypothesisWords: 6 });
    expect(result.rate).toBeCloseTo(2 / 5);
    expect(wordErrorRate('a b c d', 'a d')).toMatchObject({ deletions: 2, substitutions: 0, insertions: 0, rate: 0.5 });
  });

  test('nothing heard: every word deleted (100 %); more heard than said can exceed 100 %', () => {
    expect(wordErrorRate('one two three', '').rate).toBe(1);
    expect(wordErrorRate('one', 'two three four').rate).toBe(3);
  });

  test('an empty reference scores 0 for an empty transcript and 1 otherwise', () => {
    expect(wordErrorRate('', '').rate).toBe(0);
    expect(wordErrorRate('', 'noise').rate).toBe(1);
  });
});
