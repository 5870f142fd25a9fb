import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import type { SigningKeyRecord } from '../../schemas/signing-key';
import { signingPublicKeys } from './signing-public-keys';

export const getSigningKey = async ({ keyId }: { keyId: string }): Promise<SigningKeyRecord> => {
  const key = await getDb().signingKey.findUnique({ where: { id: keyId }, select: { id: true, createdAt: true } });
  if (!key) throw notFound('Signing Key');
  return key;
};

// The verifier's view: the public key, or null once the key is deleted. Kept in memory because
// every signed playlist request verifies a token; deleting the key drops it at once.
export const findSigningPublicKey = async (keyId: string): Promise<string | null> => {
  const found = await signingPublicKeys().get(keyId, async () => {
    const key = await getDb().signingKey.findUnique({ where: { id: keyId }, select: { publicKeyPem: true } });
    return key ? { pem: key.publicKeyPem } : null;
  });
  return found?.pem ?? null;
};
