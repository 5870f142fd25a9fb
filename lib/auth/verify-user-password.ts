import { hashSecret, verifySecret } from './secret-hash';
import { getDb } from '../db/client';
import { processSingleton } from '../utils/process-singleton';
import { normalizeEmail } from '../schemas/user';

// A hash of a random password, verified against when the email is unknown, so a wrong email takes
// as long as a wrong password and sign-in does not reveal which emails exist.
const decoyHash = () => processSingleton('decoy-password-hash', () => hashSecret(crypto.randomUUID()));

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
