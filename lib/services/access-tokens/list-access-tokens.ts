import { getDb } from '../../db/client';

// Lists tokens without anything secret: the hash never leaves this function.
export const listAccessTokens = async () => {
  const tokens = await getDb().accessToken.findMany({ orderBy: { createdAt: 'desc' } });
  return tokens.map(({ id, name, permission, createdAt, lastUsedAt, revokedAt }) => ({
    id,
    name,
    permission,
    createdAt,
    lastUsedAt,
    revokedAt,
  }));
};
