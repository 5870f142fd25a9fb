import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { signPlaybackProof, verifyPlaybackProof } from './playback-proof';

const key = randomBytes(32);
const now = 1_800_000_000;

describe('playback proofs', () => {
  test('a proof grants its playback ID until the expiry, with its restriction', () => {
    const proof = signPlaybackProof(key, { playbackId: 'pid', expiresAt: now + 60, restrictionId: 'r1' });
    expect(verifyPlaybackProof(key, proof, 'pid', now)).toEqual({
      ok: true,
      grant: { playbackId: 'pid', expiresAt: now + 60, restrictionId: 'r1' },
    });
    expect(verifyPlaybackProof(key, proof, 'pid', now + 60)).toMatchObject({ ok: false, reason: expect.stringMatching(/expired/) });
  });

  test('an instant clip granted by the token travels in the proof and cannot be changed', () => {
    const proof = signPlaybackProof(key, { playbackId: 'pid', expiresAt: now + 60, restrictionId: null, clip: { start: 2.5, end: null } });
    expect(verifyPlaybackProof(key, proof, 'pid', now)).toEqual({
      ok: true,
      grant: { playbackId: 'pid', expiresAt: now + 60, restrictionId: null, clip: { start: 2.5, end: null } },
    });
    const [, signature] = proof.split('.');
    const widened = Buffer.from(JSON.stringify({ e: now + 60, r: null, c: [0, null] })).toString('base64url');
    expect(verifyPlaybackProof(key, `${widened}.${signature}`, 'pid', now).ok).toBe(false);
  });

  test('a proof is bound to its playback ID, its payload and the key', () => {
    const proof = signPlaybackProof(key, { playbackId: 'pid', expiresAt: now + 60, restrictionId: null });
    expect(verifyPlaybackProof(key, proof, 'other', now).ok).toBe(false);
    expect(verifyPlaybackProof(randomBytes(32), proof, 'pid', now).ok).toBe(false);
    const [, signature] = proof.split('.');
    const longer = Buffer.from(JSON.stringify({ e: now + 999_999, r: null })).toString('base64url');
    expect(verifyPlaybackProof(key, `${longer}.${signature}`, 'pid', now).ok).toBe(false);
    expect(verifyPlaybackProof(key, 'garbage', 'pid', now).ok).toBe(false);
  });
});
