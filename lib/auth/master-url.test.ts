import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { masterUrlPath, verifyMasterUrl } from './master-url';

const key = randomBytes(32);
const parts = { assetId: 'abc123', fileName: 'mezzanine.mp4', expiresAt: 2_000_000_000 };

const queryOf = (path: string) => new URL(path, 'http://x').searchParams;

describe('master URLs', () => {
  test('a URL it made verifies until it expires', () => {
    const query = queryOf(masterUrlPath(key, parts));
    const request = { assetId: 'abc123', fileName: 'mezzanine.mp4', expires: query.get('expires'), signature: query.get('signature') };
    expect(verifyMasterUrl(key, request, 1_999_999_999)).toEqual({ ok: true });
    expect(verifyMasterUrl(key, request, 2_000_000_000)).toEqual({ ok: false, reason: 'expired' });
  });

  test('tampering with any signed part, or another key, is invalid', () => {
    const query = queryOf(masterUrlPath(key, parts));
    const good = { assetId: 'abc123', fileName: 'mezzanine.mp4', expires: query.get('expires'), signature: query.get('signature') };
    const now = 1_000;
    expect(verifyMasterUrl(key, { ...good, expires: '2000000001' }, now)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyMasterUrl(key, { ...good, assetId: 'abc124' }, now)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyMasterUrl(key, { ...good, fileName: 'mezzanine.m4a' }, now)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyMasterUrl(key, { ...good, signature: `${good.signature}x` }, now)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyMasterUrl(key, { ...good, signature: null }, now)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyMasterUrl(randomBytes(32), good, now)).toEqual({ ok: false, reason: 'invalid' });
  });

  test('a forged expired URL is invalid, not expired', () => {
    expect(verifyMasterUrl(key, { assetId: 'abc123', fileName: 'mezzanine.mp4', expires: '5', signature: 'AAAA' }, 1_000)).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });
});
