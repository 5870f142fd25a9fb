import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { AppShell } from '@/components/layout/app-shell';
import { Providers } from '@/components/layout/providers';
import { auth } from '@/lib/auth/dashboard-auth';
import { countUsers } from '@/lib/services/users/count-users';
import { signOutAction } from '../(auth)/actions';

export const dynamic = 'force-dynamic';

// Every dashboard page renders inside this layout, so this is where a session is required (there
// is no middleware; see lib/auth/dashboard-auth.ts). The JSON routes check it again themselves.
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await auth();
  if (!session?.user?.email) redirect((await countUsers()) === 0 ? '/setup' : '/sign-in');
  return (
    <Providers>
      <AppShell email={session.user.email} signOutAction={signOutAction}>
        {children}
      </AppShell>
    </Providers>
  );
}
