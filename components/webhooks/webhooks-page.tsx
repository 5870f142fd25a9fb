'use client';

import { useState, type FormEvent } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import { useCreateWebhookEndpoint, useWebhookEndpoints } from '../hooks/use-webhooks';
import { Button } from '../ui/button';
import { ErrorList, TextField } from '../ui/field';
import { useToast } from '../ui/toast';
import { WebhookEndpointCard } from './webhook-endpoint-card';

export function WebhooksPage() {
  const endpoints = useWebhookEndpoints();
  const createEndpoint = useCreateWebhookEndpoint();
  const [url, setUrl] = useState('');
  const toast = useToast();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    createEndpoint.mutate(url, {
      onSuccess: () => {
        toast('success', 'Webhook endpoint added.');
        setUrl('');
      },
    });
  };

  return (
    <div className="space-y-5">
      <h1 className="text-2xl font-semibold">Webhooks</h1>
      <p className="text-sm text-zinc-600">
        Every asset and upload event is POSTed to each endpoint with a <code className="font-mono">mux-signature</code> header
        made with the endpoint’s signing secret.
      </p>
      <form onSubmit={submit} className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4" noValidate>
        <div className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
          <TextField label="Endpoint URL" type="url" placeholder="https://example.com/webhooks/keyframe" value={url} onChange={(event) => setUrl(event.target.value)} required />
          <Button type="submit" disabled={createEndpoint.isPending}>
            Add endpoint
          </Button>
        </div>
        {createEndpoint.isError && <ErrorList messages={errorMessages(createEndpoint.error)} />}
      </form>
      {endpoints.isError && <ErrorList messages={errorMessages(endpoints.error)} />}
      {endpoints.data?.length === 0 && <p className="text-sm text-zinc-600">No webhook endpoints yet. Add a URL above to receive events.</p>}
      {endpoints.data && endpoints.data.length > 0 && (
        <ul className="space-y-4">
          {endpoints.data.map((endpoint) => (
            <WebhookEndpointCard key={endpoint.id} endpoint={endpoint} />
          ))}
        </ul>
      )}
    </div>
  );
}
