import { createHmac, timingSafeEqual } from 'node:crypto';

// A signed multivariant playlist points at rendition playlists and segments with relative URLs,
// and players do not carry the playlist's `?token=` over to them. So those URLs carry their own
// short proof instead: an HMAC (with a key only this installation has) over the playback ID, the
// token's expiry and its playback restriction. It grants exactly what the token granted, for as
// long as the token was valid, and nothing else. That includes an instant clip the token asked for
// (its `asset_start_time`/`asset_end_time` claims): the rendition playlists opened with the proof
// are trimmed to it, and a URL edited by the viewer cannot widen it.

export type ProofClip = { start: number | null; end: number | null };
export type ProofGrant = { playbackId: string; expiresAt: number; restrictionId: string | null; clip?: ProofClip | null };

const MAC_BYTES = 16;

const mac = (key: Uint8Array, payload: string, playbackId: string) =>
  createHmac('sha256', key).update(`${playbackId}.${payload}`).digest().subarray(0, MAC_BYTES);

export const signPlaybackProof = (key: Uint8Array, grant: ProofGrant): string => {
  const clip = grant.clip ? { c: [grant.clip.start, grant.clip.end] } : {};
  const payload = Buffer.from(JSON.stringify({ e: grant.expiresAt, r: grant.restrictionId, ...clip })).toString('base64url');
  return `${payload}.${mac(key, payload, grant.playbackId).toString('base64url')}`;
};

export type ProofCheck = { ok: true; grant: ProofGrant } | { ok: false; reason: string };

export const verifyPlaybackProof = (key: Uint8Array, proof: string, playbackId: string, nowSeconds: number): ProofCheck => {
  const [payload, signature, extra] = proof.split('.');
  if (!payload || !signature || extra !== undefined) return { ok: false, reason: 'The playback proof is malformed' };
  const expected = mac(key, payload, playbackId);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'The playback proof is invalid for this playback ID' };
  }
  const { e: expiresAt, r: restrictionId, c: clip } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    e: number;
    r: string | null;
    c?: [number | null, number | null];
  };
  if (nowSeconds >= expiresAt) return { ok: false, reason: 'The token this playback URL came from has expired' };
  return { ok: true, grant: { playbackId, expiresAt, restrictionId, ...(clip && { clip: { start: clip[0], end: clip[1] } }) } };
};
