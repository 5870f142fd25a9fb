'use server';

import { AuthError } from 'next-auth';
import { redirect } from 'next/navigation';
import { signIn, signOut } from '@/lib/auth/dashboard-auth';
import { isApiError } from '@/lib/http/api-error';
import { takeRateLimitToken } from '@/lib/http/rate-limit';
import { normalizeEmail } from '@/lib/schemas/user';
import { createUser } from '@/lib/services/users/create-user';

// Server actions behind the sign-in, first-run and sign-out forms. A failed attempt returns a
// message for the form; success redirects (next-auth's signIn throws Next's redirect).

// `email` is echoed back so the form keeps it after React resets the fields on submit.
export type AuthFormState = { error?: string; email?: string };

const field = (form: FormData, name: string): string => {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
};

// Password guessing is slowed per account: a burst of 10 attempts, then one every 6 seconds.
const SIGN_IN_RATE = { perSecond: 1 / 6, burst: 10 };

const signInOrMessage = async (email: string, password: string): Promise<AuthFormState> => {
  const decision = await takeRateLimitToken('dashboard-sign-in', normalizeEmail(email), SIGN_IN_RATE);
  if (!decision.allowed) {
    return { error: `Too many sign-in attempts; try again in ${Math.ceil(decision.retryAfterMs / 1000)} s.`, email };
  }
  try {
    await signIn('credentials', { email, password, redirectTo: '/assets' });
  } catch (error) {
    if (error instanceof AuthError) return { error: 'Wrong email or password.', email };
    throw error;
  }
  return {};
};

export const signInAction = async (_state: AuthFormState, form: FormData): Promise<AuthFormState> =>
  signInOrMessage(field(form, 'email'), field(form, 'password'));

export const createAdminAction = async (_state: AuthFormState, form: FormData): Promise<AuthFormState> => {
  const email = field(form, 'email');
  const password = field(form, 'password');
  if (password !== field(form, 'confirm')) return { error: 'The passwords do not match.', email };
  try {
    await createUser({ email, password, onlyIfFirst: true });
  } catch (error) {
    if (isApiError(error)) {
      if (error.type === 'conflict') redirect('/sign-in');
      return { error: error.messages.join(' '), email };
    }
    throw error;
  }
  return signInOrMessage(email, password);
};

export const signOutAction = async (): Promise<void> => {
  await signOut({ redirectTo: '/sign-in' });
};
