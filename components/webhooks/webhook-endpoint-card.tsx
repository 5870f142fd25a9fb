'use client';

import { useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { WebhookEndpointJson } from '../hooks/dashboard-types';
import { useDeleteWebhookEndpoint } from '../hooks/use-webhooks';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { CopyButton } from '../ui/copy-button';
import { useToast } from '../ui/toast';
import { WebhookDeliveries } from './webhook-deliveries';

export function WebhookEndpointCard({ endpoint }: { endpoint: WebhookEndpointJson }) {
  const [revealed, setRevealed] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const deleteEndpoint = useDeleteWebhookEndpoint();
  const toast = useToast();
  return (
    <li className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4" data-endpoint-id={endpoint.id}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="min-w-0 flex-1 font-mono text-sm break-all">{endpoint.url}</span>
        <Button variant="ghost" className="px-2 py-1 text-xs text-red-700" onClick={() => setConfirming(true)} aria-label={`Delete endpoint ${endpoint.url}`}>
          Delete
        </Button>
      </div>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium">Signing secret</span>
        <code className="font-mono text-xs" data-testid="webhook-secret">
          {revealed ? endpoint.secret : '•'.repeat(16)}
        </code>
        <Button variant="secondary" className="px-2 py-1 text-xs" onClick={() => setRevealed(!revealed)} aria-pressed={revealed}>
          {revealed ? 'Hide' : 'Reveal'}
        </Button>
        <CopyButton value={endpoint.secret} label="Copy signing secret" />
      </div>
      <WebhookDeliveries endpointId={endpoint.id} />
      <ConfirmDialog
        open={confirming}
        title="Delete webhook endpoint?"
        message={`Events will no longer be sent to ${endpoint.url}, and its pending deliveries are dropped.`}
        confirmLabel="Delete endpoint"
        busy={deleteEndpoint.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          deleteEndpoint.mutate(endpoint.id, {
            onSuccess: () => {
              toast('success', 'Webhook endpoint deleted.');
              setConfirming(false);
            },
            onError: (error) => toast('error', errorMessages(error).join(' ')),
          })
        }
      />
    </li>
  );
}
