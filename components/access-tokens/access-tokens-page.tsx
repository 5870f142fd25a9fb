'use client';

import { useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { AccessTokenJson, CreatedAccessToken } from '../hooks/dashboard-types';
import { useAccessTokens, useRevokeAccessToken } from '../hooks/use-access-tokens';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { ErrorList } from '../ui/field';
import { formatIso } from '../ui/format';
import { useToast } from '../ui/toast';
import { CreateTokenForm } from './create-token-form';
import { NewTokenSecret } from './new-token-secret';

export function AccessTokensPage() {
  const tokens = useAccessTokens();
  const revoke = useRevokeAccessToken();
  const [created, setCreated] = useState<CreatedAccessToken>();
  const [revoking, setRevoking] = useState<AccessTokenJson>();
  const toast = useToast();

  return (
    <div className="space-y-5">
      <h1 className="text-2xl font-semibold">Access tokens</h1>
      <p className="text-sm text-zinc-600">
        Tokens authenticate API calls (HTTP Basic: token ID as the user name, secret as the password), e.g. from @mux/mux-node.
      </p>
      <CreateTokenForm onCreated={setCreated} />
      {created && <NewTokenSecret token={created} onDismiss={() => setCreated(undefined)} />}
      {tokens.isError && <ErrorList messages={errorMessages(tokens.error)} />}
      {tokens.data?.length === 0 && <p className="text-sm text-zinc-600">No access tokens yet. Create one above to call the API.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <div className="relative overflow-x-auto rounded-lg border border-zinc-200 bg-white">
          <table className="w-full min-w-[40rem] text-left text-sm">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-xs text-zinc-600 uppercase">
              <tr>
                <th scope="col" className="px-3 py-2">Name</th>
                <th scope="col" className="px-3 py-2">Token ID</th>
                <th scope="col" className="px-3 py-2">Permissions</th>
                <th scope="col" className="px-3 py-2">Last used</th>
                <th scope="col" className="px-3 py-2">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((token) => (
                <tr key={token.id} data-token-id={token.id} className="border-b border-zinc-100 last:border-0">
                  <td className="px-3 py-2 font-medium">{token.name}</td>
                  <td className="px-3 py-2 font-mono text-xs">{token.id}</td>
                  <td className="px-3 py-2">{token.permission === 'read_only' ? 'Read only' : 'Read and write'}</td>
                  <td className="px-3 py-2">{formatIso(token.last_used_at)}</td>
                  <td className="px-3 py-2 text-right">
                    {token.revoked_at ? (
                      <span className="text-xs text-zinc-500">Revoked {formatIso(token.revoked_at)}</span>
                    ) : (
                      <Button variant="ghost" className="px-2 py-1 text-xs text-red-700" onClick={() => setRevoking(token)} aria-label={`Revoke ${token.name}`}>
                        Revoke
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={revoking !== undefined}
        title="Revoke access token?"
        message={`Applications using "${revoking?.name ?? ''}" will get 401 on their next request. This cannot be undone.`}
        confirmLabel="Revoke token"
        busy={revoke.isPending}
        onCancel={() => setRevoking(undefined)}
        onConfirm={() =>
          revoking &&
          revoke.mutate(revoking.id, {
            onSuccess: () => {
              toast('success', `Revoked "${revoking.name}".`);
              setRevoking(undefined);
            },
            onError: (error) => toast('error', errorMessages(error).join(' ')),
          })
        }
      />
    </div>
  );
}
