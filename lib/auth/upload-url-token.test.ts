import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { checkUploadUrlToken, signUploadUrlToken } from './upload-url-token';

const key = randomBytes(32);
const hour = 3600_000;

const sign = (uploadId: string, expiresInMs: number, signingKey: Uint8Array = key) =>
  signUploadUrlToken({ key: signingKey, uploadId, issuedAt: new Date(Date.now() - hour), expiresAt: new Date(Date.now() + expiresInMs) });

describe('upload URL tokens', () => {
  test('a token is valid for its own upload only', async () => {
    const token = await sign('upload-a', hour);
    expect(await checkUploadUrlToken({ key, token, uploadId: 'upload-a' })).toBe('valid');
    expect(await checkUploadUrlToken({ key, token, uploadId: 'upload-b' })).toBe('invalid');
  });

  test('a token signed with another key, altered, or missing is invalid', async () => {
    const foreign = await sign('upload-a', hour, randomBytes(32));
    expect(await checkUploadUrlToken({ key, token: foreign, uploadId: 'upload-a' })).toBe('invalid');
    const token = await sign('upload-a', hour);
    const tampered = `${token.slice(0, -2)}${token.endsWith('A') ? 'BB' : 'AA'}`;
    expect(await checkUploadUrlToken({ key, token: tampered, uploadId: 'upload-a' })).toBe('invalid');
    expect(await checkUploadUrlToken({ key, token: null, uploadId: 'upload-a' })).toBe('invalid');
    expect(await checkUploadUrlToken({ key, token: 'not-a-jwt', uploadId: 'upload-a' })).toBe('invalid');
  });

  test('a genuine token past its expiry is reported as expired, not invalid', async () => {
    const token = await sign('upload-a', -60_000);
    expect(await checkUploadUrlToken({ key, token, uploadId: 'upload-a' })).toBe('expired');
    expect(await checkUploadUrlToken({ key, token, uploadId: 'upload-b' })).toBe('invalid');
  });
});
