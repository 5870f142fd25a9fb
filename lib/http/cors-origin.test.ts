import { describe, expect, test } from 'vitest';
import { originMatches } from './cors-origin';

describe('originMatches', () => {
  test('exact origins match case-insensitively, ignoring a trailing slash', () => {
    expect(originMatches('https://app.example.com', 'https://app.example.com')).toBe(true);
    expect(originMatches('https://App.Example.com/', 'https://app.example.com')).toBe(true);
    expect(originMatches('https://app.example.com', 'http://app.example.com')).toBe(false);
    expect(originMatches('https://app.example.com', 'https://app.example.com:8443')).toBe(false);
    expect(originMatches('https://app.example.com', 'https://evil.com')).toBe(false);
  });

  test('"*" allows any origin', () => {
    expect(originMatches('*', 'http://localhost:3000')).toBe(true);
  });

  test('a wildcard host allows subdomains only', () => {
    expect(originMatches('https://*.example.com', 'https://app.example.com')).toBe(true);
    expect(originMatches('https://*.example.com', 'https://a.b.example.com')).toBe(true);
    expect(originMatches('https://*.example.com', 'https://example.com')).toBe(false);
    expect(originMatches('https://*.example.com', 'https://example.com.evil.net')).toBe(false);
    expect(originMatches('https://*.example.com', 'https://evilexample.com')).toBe(false);
    expect(originMatches('https://*.example.com', 'http://app.example.com')).toBe(false);
  });

  test('nothing matches a missing origin or an upload without cors_origin', () => {
    expect(originMatches(null, 'https://app.example.com')).toBe(false);
    expect(originMatches('*', null)).toBe(false);
  });
});
