'use client';

import type { CreatedAccessToken } from '../hooks/dashboard-types';
import { Button } from '../ui/button';
import { CopyButton } from '../ui/copy-button';

// The only time the secret is ever visible: the server keeps just its hash.
export function NewTokenSecret({ token, onDismiss }: { token: CreatedAccessToken; onDismiss: () => void }) {
  return (
    <section aria-labelledby="new-token-heading" className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm">
      <h2 id="new-token-heading" className="font-semibold">
        Copy the secret of “{token.name}” now
      </h2>
      <p role="alert" className="text-amber-900">
        This is the only time the secret is shown. Keyframe stores only a hash of it; if you lose it, revoke the token and create a new one.
      </p>
      <dl className="grid gap-2 sm:grid-cols-[max-content_1fr_auto] sm:items-center">
        <dt className="font-medium">Token ID</dt>
        <dd className="font-mono break-all" data-testid="new-token-id">
          {token.id}
        </dd>
        <dd>
          <CopyButton value={token.id} label="Copy token ID" />
        </dd>
        <dt className="font-medium">Secret</dt>
        <dd className="font-mono break-all" data-testid="new-token-secret">
          {token.secret}
        </dd>
        <dd>
          <CopyButton value={token.secret} label="Copy secret" />
        </dd>
      </dl>
      <Button variant="secondary" onClick={onDismiss}>
        I have stored the secret
      </Button>
    </section>
  );
}
