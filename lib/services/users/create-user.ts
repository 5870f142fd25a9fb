import { hashSecret } from '../../auth/secret-hash';
import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import { generateId } from '../../utils/ids';
import { normalizeEmail, userInputProblems } from '../../schemas/user';

export type CreatedUser = { id: string; email: string; createdAt: Date };

// Creates a dashboard user; only the scrypt hash of the password is stored. With `onlyIfFirst` the
// user is created only while there are none (the first-run screen), checked inside the same
// transaction so two browsers racing on a fresh install cannot both become admin.
export const createUser = async ({
  email,
  password,
  onlyIfFirst = false,
}: {
  email: string;
  password: string;
  onlyIfFirst?: boolean;
}): Promise<CreatedUser> => {
  const problems = userInputProblems({ email, password });
  if (problems.length > 0) throw new ApiError('invalid_parameters', problems);
  const normalized = normalizeEmail(email);
  const passwordHash = await hashSecret(password);
  return getDb().$transaction(async (tx) => {
    if (onlyIfFirst && (await tx.user.count()) > 0) {
      throw new ApiError('conflict', 'The admin account already exists; sign in instead');
    }
    if (await tx.user.findUnique({ where: { email: normalized } })) {
      throw new ApiError('conflict', `A user with email ${normalized} already exists`);
    }
    const user = await tx.user.create({ data: { id: generateId(24), email: normalized, passwordHash } });
    return { id: user.id, email: user.email, createdAt: user.createdAt };
  });
};
