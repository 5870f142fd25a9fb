import { createHmac, timingSafeEqual } from 'node:crypto';

// Temporary master download URLs: `/master/{assetId}/mezzanine.{mp4|m4a}?expires=…&signature=…`
// on the stream host. The signature is an HMAC of the asset, file and expiry (Unix seconds) with
// an installation secret, so any node accepts it without a database read and nobody can extend
// or move it. Other query parameters (`download`) are not signed, as with Mux.

export type MasterUrlParts = { assetId: string; fileName: string; expiresAt: number };

const message = ({ assetId, fileName, expiresAt }: MasterUrlParts) => `keyframe-master\n${assetId}\n${fileName}\n${expiresAt}`;

export const signMasterUrl = (key: Buffer, parts: MasterUrlParts): string =>
  createHmac('sha256', key).update(message(parts)).digest('base64url');

export const masterUrlPath = (key: Buffer, parts: MasterUrlParts): string =>
  `/master/${parts.assetId}/${parts.fileName}?expires=${parts.expiresAt}&signature=${signMasterUrl(key, parts)}`;

export type MasterUrlCheck = { ok: true } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks the signature first (constant time), then the expiry: a forged URL is never "expired". */
export const verifyMasterUrl = (
  key: Buffer,
  { assetId, fileName, expires, signature }: { assetId: string; fileName: string; expires: string | null; signature: string | null },
  nowSeconds: number,
): MasterUrlCheck => {
  if (!expires || !/^\d{1,12}$/.test(expires) || !signature) return { ok: false, reason: 'invalid' };
  const expected = Buffer.from(signMasterUrl(key, { assetId, fileName, expiresAt: Number(expires) }));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  return Number(expires) <= nowSeconds ? { ok: false, reason: 'expired' } : { ok: true };
};
