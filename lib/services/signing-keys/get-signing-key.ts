import { getDb } from '../../db/client';
import { notFound } from '../../http/api-error';
import type { SigningKeyRecord } from '../../schemas/signing-key';

export const getSigningKey = async ({ keyId }: { keyId: string }): Promise<SigningKeyRecord> => {
  const key = await getDb().signingKey.findUnique({ where: { id: keyId }, select: { id: true, createdAt: true } });
  if (!key) throw notFound('Signing Key');
  return key;
};

// The verifier's view: the public key, or null once the key is deleted.
export const findSigningPublicKey = async (keyId: string): Promise<string | null> =>
  (await getDb().signingKey.findUnique({ where: { id: keyId }, select: { publicKeyPem: true } }))?.publicKeyPem ?? null;
