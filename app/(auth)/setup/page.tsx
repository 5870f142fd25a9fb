import { redirect } from 'next/navigation';
import { AuthCard } from '@/components/layout/auth-card';
import { SetupForm } from '@/components/layout/setup-form';
import { countUsers } from '@/lib/services/users/count-users';
import { createAdminAction } from '../actions';

export const dynamic = 'force-dynamic';

// Shown only on a fresh install: once any user exists this page sends everyone to sign-in.
export default async function SetupPage() {
  if ((await countUsers()) > 0) redirect('/sign-in');
  return (
    <AuthCard title="Create the admin account" subtitle="This server has no users yet. The account you create here signs in to the dashboard.">
      <SetupForm action={createAdminAction} />
    </AuthCard>
  );
}
