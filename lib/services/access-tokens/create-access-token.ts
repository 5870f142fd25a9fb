import { randomBytes } from 'node:crypto';
import { hashSecret } from '../../auth/secret-hash';
import type { TokenPermission } from '../../schemas/access-token';
import { getDb } from '../../db/client';
import { generateId } from '../../utils/ids';

// Creates an access token. The secret is returned here once and only its scrypt hash is stored.
export const createAccessToken = async ({
  name,
  permission = 'read_write',
}: {
  name: string;
  permission?: TokenPermission;
}): Promise<{ id: string; secret: string; name: string; permission: TokenPermission; createdAt: Date }> => {
  const id = generateId(36);
  const secret = randomBytes(48).toString('base64url');
  const token = await getDb().accessToken.create({
    data: { id, name, permission, secretHash: await hashSecret(secret) },
  });
  return { id, secret, name: token.name, permission, createdAt: token.createdAt };
};
