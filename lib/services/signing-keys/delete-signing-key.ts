import { getDb } from '../../db/client';
import { notFound } from '../../http/api-error';

// Tokens signed with the key stop working at once: verification looks the key up every time.
export const deleteSigningKey = async ({ keyId }: { keyId: string }): Promise<void> => {
  const deleted = await getDb().signingKey.deleteMany({ where: { id: keyId } });
  if (deleted.count === 0) throw notFound('Signing Key');
};
