import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import Mux from '@mux/mux-node';
import { SignJWT } from 'jose';
import { describe, expect, test } from 'vitest';
import { verifyPlaybackToken, type PlaybackAudience } from './playback-token';

// Tokens are made with the real SDK (mux-node's jwt helpers), as customers will make them.
const { publicKey, privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
});
const keyId = 'key1';
const keySecret = Buffer.from(privateKey).toString('base64');
const mux = new Mux({ tokenId: 'unused', tokenSecret: 'unused' });
const findPublicKey = async (id: string) => (id === keyId ? publicKey : null);

const verify = (token: string, { playbackId = 'pid', audience = 'v' as PlaybackAudience } = {}) =>
  verifyPlaybackToken({ token, playbackId, audience, findPublicKey });

const signed = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(createPrivateKey(privateKey));

const sdkToken = (options: Record<string, unknown> = {}, playbackId = 'pid') =>
  mux.jwt.signPlaybackId(playbackId, { keyId, keySecret, ...options });

describe('verifyPlaybackToken', () => {
  test('accepts SDK tokens for each resource type and returns the claims', async () => {
    for (const [type, audience] of [['video', 'v'], ['thumbnail', 't'], ['gif', 'g'], ['storyboard', 's']] as const) {
      const result = await verify(await sdkToken({ type, params: { time: '5' } }), { audience });
      expect(result).toMatchObject({ ok: true, claims: { sub: 'pid', aud: audience, time: '5' } });
    }
  });

  test('accepts kid in the header (older SDKs) as well as in the claims', async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: keyId })
      .setSubject('pid')
      .setAudience('v')
      .setExpirationTime('1h')
      .sign(createPrivateKey(privateKey));
    expect((await verify(token)).ok).toBe(true);
  });

  test.each([
    ['another playback ID', async () => sdkToken({}, 'other'), /different playback ID/],
    ['another resource type', async () => sdkToken({ type: 'thumbnail' }), /aud claim must be "v"/],
    ['an expired token', async () => signed({ sub: 'pid', aud: 'v', kid: keyId, exp: Math.floor(Date.now() / 1000) - 60 }), /expired/],
    ['a deleted key', async () => mux.jwt.signPlaybackId('pid', { keyId: 'gone', keySecret }), /does not exist or was deleted/],
  ])('rejects %s', async (_name, make, reason) => {
    expect(await verify(await make())).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });

  test('rejects a tampered signature', async () => {
    const token = await sdkToken();
    const [header, payload] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()), sub: 'pid', exp: 9_999_999_999 })).toString('base64url');
    expect(await verify(`${header}.${forged}.${token.split('.')[2]}`)).toEqual({ ok: false, reason: expect.stringMatching(/signature is invalid/) });
  });

  test('rejects alg "none" and HS256 signed with the public key as the secret', async () => {
    const claims = { sub: 'pid', aud: 'v', kid: keyId, exp: Math.floor(Date.now() / 1000) + 3600 };
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
    expect(await verify(unsigned)).toEqual({ ok: false, reason: expect.stringMatching(/RS256/) });
    const confused = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(publicKey));
    expect(await verify(confused)).toEqual({ ok: false, reason: expect.stringMatching(/RS256/) });
  });

  test('rejects a token without exp and garbage', async () => {
    const noExpiry = await signed({ kid: keyId, sub: 'pid', aud: 'v' });
    expect((await verify(noExpiry)).ok).toBe(false);
    expect(await verify('not.a.jwt')).toEqual({ ok: false, reason: expect.stringMatching(/well-formed/) });
  });
});
