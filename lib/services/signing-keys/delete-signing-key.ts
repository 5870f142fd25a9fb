import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import { tellOtherNodes } from '../../coordination/tell-other-nodes';
import { forgetSigningPublicKey } from './signing-public-keys';

// Tokens signed with the key stop working at once: the verifier's cached copy is dropped with it.
export const deleteSigningKey = async ({ keyId }: { keyId: string }): Promise<void> => {
  const deleted = await getDb().signingKey.deleteMany({ where: { id: keyId } });
  forgetSigningPublicKey(keyId);
  await tellOtherNodes({ type: 'signing-key-deleted', keyId });
  if (deleted.count === 0) throw notFound('Signing Key');
};
