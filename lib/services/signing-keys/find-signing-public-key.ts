import { getDb } from '../../db/client';
import { signingPublicKeys } from './signing-public-keys';

// The verifier's view: the public key, or null once the key is deleted. Kept in memory because
// every signed playlist request verifies a token; deleting the key drops it at once.
export const findSigningPublicKey = async (keyId: string): Promise<string | null> => {
  const found = await signingPublicKeys().get(keyId, async () => {
    const key = await getDb().signingKey.findUnique({ where: { id: keyId }, select: { publicKeyPem: true } });
    return key ? { pem: key.publicKeyPem } : null;
  });
  return found?.pem ?? null;
};
