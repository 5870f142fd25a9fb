import { handlers } from '@/lib/auth/dashboard-auth';

export const dynamic = 'force-dynamic';

// next-auth's endpoints (session, CSRF, credentials callback, sign-out).
export const { GET, POST } = handlers;
