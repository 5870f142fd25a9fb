'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { QualityReportJson } from './dashboard-types';
import { QUALITY_POLL_MS, queryKeys } from './query-keys';

export const useQualityReport = (assetId: string, enabled: boolean) =>
  useQuery({
    queryKey: queryKeys.assetQuality(assetId),
    queryFn: async () => (await apiFetch<{ data: QualityReportJson }>(`/api/dashboard/assets/${assetId}/quality`)).data,
    enabled,
    refetchInterval: (query) => (query.state.data?.status === 'measuring' ? QUALITY_POLL_MS : false),
  });

export const useMeasureQuality = (assetId: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await apiFetch<{ data: QualityReportJson }>(`/api/dashboard/assets/${assetId}/quality`, { method: 'POST' })).data,
    onSuccess: (report) => queryClient.setQueryData(queryKeys.assetQuality(assetId), report),
  });
};
