'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { WebhookDeliveryJson, WebhookEndpointJson } from './dashboard-types';
import { queryKeys } from './query-keys';

const DELIVERIES_POLL_MS = 3000;

export const useWebhookEndpoints = () =>
  useQuery({
    queryKey: queryKeys.webhooks,
    queryFn: async () => (await apiFetch<{ data: WebhookEndpointJson[] }>('/api/dashboard/webhooks')).data,
  });

// Deliveries change on their own (the dispatcher sends and retries), so the open list is polled.
export const useWebhookDeliveries = (endpointId: string) =>
  useQuery({
    queryKey: [...queryKeys.webhooks, endpointId, 'deliveries'],
    queryFn: async () =>
      (await apiFetch<{ data: WebhookDeliveryJson[] }>(`/api/dashboard/webhooks/${endpointId}/deliveries`)).data,
    refetchInterval: DELIVERIES_POLL_MS,
  });

export const useCreateWebhookEndpoint = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (url: string) =>
      (await apiFetch<{ data: WebhookEndpointJson }>('/api/dashboard/webhooks', { method: 'POST', body: { url } })).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks }),
  });
};

export const useDeleteWebhookEndpoint = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (endpointId: string) => apiFetch<void>(`/api/dashboard/webhooks/${endpointId}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks }),
  });
};

export const useResendWebhookDelivery = (endpointId: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      apiFetch(`/api/dashboard/webhooks/${endpointId}/deliveries/${deliveryId}/resend`, { method: 'POST' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...queryKeys.webhooks, endpointId, 'deliveries'] }),
  });
};
