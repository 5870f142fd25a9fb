import { describe, expect, test } from 'vitest';
import { normalizeEmail, userInputProblems } from './user';

describe('dashboard user input', () => {
  test('emails are trimmed and lower-cased so sign-in is case-insensitive', () => {
    expect(normalizeEmail('  Admin@Example.COM ')).toBe('admin@example.com');
  });

  test('accepts an email and a long enough password', () => {
    expect(userInputProblems({ email: 'a@b.co', password: '12345678' })).toEqual([]);
  });

  test('names each field that is wrong', () => {
    expect(userInputProblems({ email: 'not-an-email', password: 'short' })).toEqual([
      'email: must be an email address',
      'password: must be at least 8 characters',
    ]);
  });
});
