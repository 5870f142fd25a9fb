import { getDb } from '../../db/client';

// Revocation takes effect on the next request: authentication reads the token row every time.
export const revokeAccessToken = async ({ id }: { id: string }): Promise<'revoked' | 'already_revoked' | 'not_found'> => {
  const db = getDb();
  const token = await db.accessToken.findUnique({ where: { id } });
  if (!token) return 'not_found';
  if (token.revokedAt) return 'already_revoked';
  await db.accessToken.update({ where: { id }, data: { revokedAt: new Date() } });
  return 'revoked';
};
