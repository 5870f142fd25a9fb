import { getDb } from '../../db/client';
import type { SigningKeyRecord } from '../../schemas/signing-key';

export const listSigningKeys = async ({ limit = 25, page = 1 }: { limit?: number; page?: number }): Promise<SigningKeyRecord[]> =>
  getDb().signingKey.findMany({
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: (page - 1) * limit,
    take: limit,
    select: { id: true, createdAt: true },
  });
