import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import type { SigningKeyRecord } from '../../schemas/signing-key';

export const getSigningKey = async ({ keyId }: { keyId: string }): Promise<SigningKeyRecord> => {
  const key = await getDb().signingKey.findUnique({ where: { id: keyId }, select: { id: true, createdAt: true } });
  if (!key) throw notFound('Signing Key');
  return key;
};
