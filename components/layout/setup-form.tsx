'use client';

import { useActionState } from 'react';
import { Button } from '../ui/button';
import { ErrorList, TextField } from '../ui/field';
import type { AuthFormAction } from './auth-form-types';

export function SetupForm({ action }: { action: AuthFormAction }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4">
      <TextField label="Email" name="email" type="email" autoComplete="username" defaultValue={state.email} key={state.email} required autoFocus />
      <TextField label="Password" name="password" type="password" autoComplete="new-password" minLength={8} required />
      <TextField label="Confirm password" name="confirm" type="password" autoComplete="new-password" minLength={8} required />
      <ErrorList messages={state.error ? [state.error] : []} />
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? 'Creating…' : 'Create admin account'}
      </Button>
    </form>
  );
}
