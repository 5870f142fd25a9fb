import { describe, expect, test } from 'vitest';
import { checkPlaybackRestriction, domainAllowed, type RestrictionRules } from './playback-restriction-check';

const rules = (overrides: Partial<RestrictionRules> = {}): RestrictionRules => ({
  allowedDomains: ['example.com', '*.example.org'],
  allowNoReferrer: false,
  allowNoUserAgent: true,
  allowHighRiskUserAgent: true,
  ...overrides,
});
const browser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36';

describe('domainAllowed', () => {
  test('exact hosts, subdomain wildcards and "*"', () => {
    expect(domainAllowed('example.com', ['example.com'])).toBe(true);
    expect(domainAllowed('www.example.com', ['example.com'])).toBe(false);
    expect(domainAllowed('a.example.org', ['*.example.org'])).toBe(true);
    expect(domainAllowed('a.b.example.org', ['*.example.org'])).toBe(true);
    expect(domainAllowed('example.org', ['*.example.org'])).toBe(false);
    expect(domainAllowed('badexample.org', ['*.example.org'])).toBe(false);
    expect(domainAllowed('anything.net', ['*'])).toBe(true);
    expect(domainAllowed('anything.net', [])).toBe(false);
  });
});

describe('checkPlaybackRestriction', () => {
  test('allows listed referrers and refuses others with a reason', () => {
    expect(checkPlaybackRestriction(rules(), { referrer: 'https://example.com/watch?v=1', userAgent: browser })).toEqual({ ok: true });
    expect(checkPlaybackRestriction(rules(), { referrer: 'https://evil.net/', userAgent: browser })).toEqual({
      ok: false,
      reason: expect.stringMatching(/evil\.net is not allowed/),
    });
  });

  test('a missing referrer follows allow_no_referrer', () => {
    expect(checkPlaybackRestriction(rules(), { referrer: null, userAgent: browser }).ok).toBe(false);
    expect(checkPlaybackRestriction(rules({ allowNoReferrer: true }), { referrer: null, userAgent: browser }).ok).toBe(true);
  });

  test('user agent rules', () => {
    const referrer = 'https://example.com/';
    expect(checkPlaybackRestriction(rules({ allowNoUserAgent: false }), { referrer, userAgent: null }).ok).toBe(false);
    expect(checkPlaybackRestriction(rules({ allowHighRiskUserAgent: false }), { referrer, userAgent: 'curl/8.5.0' }).ok).toBe(false);
    expect(checkPlaybackRestriction(rules({ allowHighRiskUserAgent: false }), { referrer, userAgent: browser }).ok).toBe(true);
    expect(checkPlaybackRestriction(rules(), { referrer, userAgent: 'curl/8.5.0' }).ok).toBe(true);
  });
});
