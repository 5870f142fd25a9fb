'use client';

import { useState, type FormEvent } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { AccessTokenJson, CreatedAccessToken } from '../hooks/dashboard-types';
import { useCreateAccessToken } from '../hooks/use-access-tokens';
import { Button } from '../ui/button';
import { ErrorList, SelectField, TextField } from '../ui/field';
import { useToast } from '../ui/toast';

export function CreateTokenForm({ onCreated }: { onCreated: (token: CreatedAccessToken) => void }) {
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<AccessTokenJson['permission']>('read_write');
  const createToken = useCreateAccessToken();
  const toast = useToast();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    createToken.mutate(
      { name, permission },
      {
        onSuccess: (token) => {
          toast('success', `Created access token "${token.name}".`);
          setName('');
          onCreated(token);
        },
      },
    );
  };

  return (
    <form onSubmit={submit} className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4" noValidate>
      <div className="grid gap-3 sm:grid-cols-[1fr_14rem_auto] sm:items-end">
        <TextField label="Token name" value={name} onChange={(event) => setName(event.target.value)} placeholder="my-app" required />
        <SelectField
          label="Permissions"
          value={permission}
          onChange={(event) => setPermission(event.target.value as AccessTokenJson['permission'])}
        >
          <option value="read_write">Read and write</option>
          <option value="read_only">Read only</option>
        </SelectField>
        <Button type="submit" disabled={createToken.isPending}>
          Create token
        </Button>
      </div>
      {createToken.isError && <ErrorList messages={errorMessages(createToken.error)} />}
    </form>
  );
}
