import NextAuth, { CredentialsSignin } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import { getEnv } from '../env';
import { instanceSecrets } from './instance-secrets';
import { verifyUserPassword } from './verify-user-password';

// Dashboard sign-in (next-auth v5): email + password checked against the User table, sessions as
// JWTs in a cookie signed with the instance's generated session secret, so `npm start` needs no
// AUTH_SECRET. The config is built lazily, on the first request, because DATA_DIR (and thus the
// secret) is not available while `next build` collects pages.
//
// There is deliberately no middleware: it would also run for the public API, playback and upload
// routes (and buffer upload bodies). Sessions are checked in the (dashboard) layout and in
// lib/http/with-dashboard.ts instead.

export const SIGN_IN_PATH = '/sign-in';

export const { handlers, auth, signIn, signOut } = NextAuth(() => ({
  secret: instanceSecrets(getEnv().dataDir).sessionSecret,
  trustHost: true,
  session: { strategy: 'jwt', maxAge: 7 * 24 * 3600 },
  pages: { signIn: SIGN_IN_PATH },
  callbacks: {
    // The default session carries only name/email/image; the user id (the JWT's subject) is added
    // so route handlers know who is acting.
    session: ({ session, token }) => ({ ...session, user: { ...session.user, id: token.sub ?? '' } }),
  },
  providers: [
    Credentials({
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      authorize: async (credentials) => {
        const { email, password } = credentials ?? {};
        if (typeof email !== 'string' || typeof password !== 'string') throw new CredentialsSignin();
        const user = await verifyUserPassword({ email, password });
        if (!user) throw new CredentialsSignin();
        return { id: user.id, email: user.email };
      },
    }),
  ],
}));
