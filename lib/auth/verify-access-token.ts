import { getDb } from '../db/client';
import { nodeRuntime } from '../runtime/node-runtime';
import { tokenPermission, type TokenPermission } from '../schemas/access-token';
import { fingerprint, verifySecret } from './secret-hash';

export type AuthenticatedToken = { id: string; name: string; permission: TokenPermission };

// scrypt is deliberately slow, so a verified (id, secret) pair is remembered in memory for a few
// minutes. The token row is still read on every request, so a revoked token stops working at once.
const VERIFIED_TTL_MS = 5 * 60_000;
const LAST_USED_RESOLUTION_MS = 60_000;

type VerifiedEntry = { secretHash: string; expiresAt: number };

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    /** By `<token id>:<fingerprint of the secret>`. */
    verifiedTokens: Map<string, VerifiedEntry>;
  }
}

export const createVerifiedTokens = (): Map<string, VerifiedEntry> => new Map();

const verifiedCache = (): Map<string, VerifiedEntry> => nodeRuntime().verifiedTokens;

export const verifyAccessToken = async (id: string, secret: string): Promise<AuthenticatedToken | null> => {
  const db = getDb();
  const token = await db.accessToken.findUnique({ where: { id } });
  if (!token || token.revokedAt) return null;

  const cacheKey = `${id}:${fingerprint(secret)}`;
  const cache = verifiedCache();
  const cached = cache.get(cacheKey);
  const isCached = cached && cached.secretHash === token.secretHash && cached.expiresAt > Date.now();
  if (!isCached) {
    if (!(await verifySecret(secret, token.secretHash))) return null;
    if (cache.size > 10_000) cache.clear();
    cache.set(cacheKey, { secretHash: token.secretHash, expiresAt: Date.now() + VERIFIED_TTL_MS });
  }

  if (!token.lastUsedAt || Date.now() - token.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.accessToken.update({ where: { id }, data: { lastUsedAt: new Date() } });
  }
  return { id: token.id, name: token.name, permission: tokenPermission(token.permission) };
};
