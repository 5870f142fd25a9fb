'use client';

import { useQuery } from '@tanstack/react-query';
import type { EmbedCodeJson, MonitoringConfigJson } from '@/lib/schemas/dashboard-analytics';
import { apiFetch } from './api-fetch';
import { queryKeys } from './query-keys';

// Server configuration for the players: fixed while the server runs, so fetched once per tab.

export const useAnalyticsMonitoring = () =>
  useQuery({
    queryKey: queryKeys.analyticsMonitoring,
    queryFn: async () => (await apiFetch<{ data: MonitoringConfigJson }>('/api/dashboard/analytics/monitoring')).data,
    staleTime: Infinity,
  });

export const useEmbedCode = (playbackId: string) =>
  useQuery({
    queryKey: queryKeys.embedCode(playbackId),
    queryFn: async () => (await apiFetch<{ data: EmbedCodeJson }>(`/api/dashboard/analytics/embed/${playbackId}`)).data,
    staleTime: Infinity,
  });
