import { hashSecret, verifySecret } from './secret-hash';
import { getDb } from '../db/client';
import { nodeRuntime } from '../runtime/node-runtime';
import { normalizeEmail } from '../schemas/user';

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    decoyPasswordHash: Promise<string>;
  }
}

// A hash of a random password, verified against when the email is unknown, so a wrong email takes
// as long as a wrong password and sign-in does not reveal which emails exist.
export const createDecoyPasswordHash = (): Promise<string> => hashSecret(crypto.randomUUID());

const decoyHash = (): Promise<string> => nodeRuntime().decoyPasswordHash;

// Returns the user when the password matches (constant-time comparison in verifySecret).
export const verifyUserPassword = async ({
  email,
  password,
}: {
  email: string;
  password: string;
}): Promise<{ id: string; email: string } | undefined> => {
  const user = await getDb().user.findUnique({ where: { email: normalizeEmail(email) } });
  const matches = await verifySecret(password, user?.passwordHash ?? (await decoyHash()));
  return user && matches ? { id: user.id, email: user.email } : undefined;
};
