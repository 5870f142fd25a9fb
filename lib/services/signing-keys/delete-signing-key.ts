import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import { tellOtherNodes } from '../cluster/node-events';
import { forgetSigningPublicKey } from './get-signing-key';

// Tokens signed with the key stop working at once: the verifier's cached copy is dropped with it.
export const deleteSigningKey = async ({ keyId }: { keyId: string }): Promise<void> => {
  const deleted = await getDb().signingKey.deleteMany({ where: { id: keyId } });
  forgetSigningPublicKey(keyId);
  await tellOtherNodes({ type: 'signing-key-deleted', keyId });
  if (deleted.count === 0) throw notFound('Signing Key');
};
