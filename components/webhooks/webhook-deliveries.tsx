'use client';

import { errorMessages } from '../hooks/api-fetch';
import { useResendWebhookDelivery, useWebhookDeliveries } from '../hooks/use-webhooks';
import { Button } from '../ui/button';
import { ErrorList } from '../ui/field';
import { formatIso } from '../ui/format';
import { StatusBadge } from '../ui/status-badge';
import { useToast } from '../ui/toast';

export function WebhookDeliveries({ endpointId }: { endpointId: string }) {
  const deliveries = useWebhookDeliveries(endpointId);
  const resend = useResendWebhookDelivery(endpointId);
  const toast = useToast();
  if (deliveries.isPending) return <p className="text-sm text-zinc-500">Loading deliveries…</p>;
  if (deliveries.isError) return <ErrorList messages={errorMessages(deliveries.error)} />;
  if (deliveries.data.length === 0) {
    return <p className="text-sm text-zinc-600">No deliveries yet. Create or upload an asset and its events appear here.</p>;
  }
  return (
    <div className="relative overflow-x-auto">
      <table className="w-full min-w-[40rem] text-left text-sm" aria-label="Recent deliveries">
        <thead className="text-xs text-zinc-600 uppercase">
          <tr>
            <th scope="col" className="py-1 pr-3">Event</th>
            <th scope="col" className="py-1 pr-3">Status</th>
            <th scope="col" className="py-1 pr-3">Attempts</th>
            <th scope="col" className="py-1 pr-3">Last response</th>
            <th scope="col" className="py-1 pr-3">Created</th>
            <th scope="col" className="py-1">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data.map((delivery) => (
            <tr key={delivery.id} data-delivery-id={delivery.id} className="border-t border-zinc-100">
              <td className="py-1 pr-3 font-mono text-xs">{delivery.event_type}</td>
              <td className="py-1 pr-3">
                <StatusBadge status={delivery.status} />
              </td>
              <td className="py-1 pr-3 tabular-nums">{delivery.attempts}</td>
              <td className="py-1 pr-3 text-xs">
                {delivery.last_attempt
                  ? `${delivery.last_attempt.response_status ?? delivery.last_attempt.error ?? 'no response'} · ${delivery.last_attempt.latency_ms} ms`
                  : '—'}
              </td>
              <td className="py-1 pr-3 text-xs whitespace-nowrap">{formatIso(delivery.created_at)}</td>
              <td className="py-1 text-right">
                <Button
                  variant="secondary"
                  className="px-2 py-1 text-xs"
                  disabled={resend.isPending || delivery.status === 'sending'}
                  aria-label={`Resend ${delivery.event_type} delivery`}
                  onClick={() =>
                    resend.mutate(delivery.id, {
                      onSuccess: () => toast('success', 'Delivery queued to be sent again.'),
                      onError: (error) => toast('error', errorMessages(error).join(' ')),
                    })
                  }
                >
                  Resend
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
