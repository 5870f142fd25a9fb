import { unixSeconds } from './common';

export type SigningKeyRecord = { id: string; createdAt: Date };

export const serializeSigningKey = (key: SigningKeyRecord, { privateKey }: { privateKey?: string } = {}) => ({
  id: key.id,
  created_at: unixSeconds(key.createdAt),
  ...(privateKey !== undefined && { private_key: privateKey }),
});
