import { describe, expect, test } from 'vitest';
import { resolveCaptionLanguage } from './caption-language';

const ENGLISH = ['en'] as const;

describe('resolveCaptionLanguage', () => {
  test('the engine’s language is transcribed as asked', () => {
    expect(resolveCaptionLanguage('en', ENGLISH)).toEqual({ ok: true, transcribeAs: 'en', languageCode: 'en' });
  });

  test('a regional variant is transcribed in its language and keeps its code', () => {
    expect(resolveCaptionLanguage('en-GB', ENGLISH)).toEqual({ ok: true, transcribeAs: 'en', languageCode: 'en-GB' });
  });

  test('auto with a one-language engine is that language, and the track says so', () => {
    expect(resolveCaptionLanguage('auto', ENGLISH)).toEqual({ ok: true, transcribeAs: 'en', languageCode: 'en' });
  });

  test('another language is refused with a message naming the supported ones', () => {
    const result = resolveCaptionLanguage('fr', ENGLISH);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('English');
    expect(result.message).toContain('"en"');
    expect(result.message).toContain('"auto"');
    expect(result.message).toContain('French ("fr") is not supported');
  });

  test('auto is refused by an engine that knows several languages (it cannot detect which)', () => {
    const result = resolveCaptionLanguage('auto', ['en', 'de']);
    expect(result).toMatchObject({ ok: false });
  });

  test('a code that is not a language tag is refused, not thrown on', () => {
    expect(resolveCaptionLanguage('??', ENGLISH)).toMatchObject({ ok: false });
  });
});
