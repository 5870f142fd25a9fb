'use client';

import { useQuery } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { AssetJson } from './dashboard-types';
import { PREPARING_POLL_MS, queryKeys } from './query-keys';

export const useAsset = (assetId: string) =>
  useQuery({
    queryKey: queryKeys.asset(assetId),
    queryFn: async () => (await apiFetch<{ data: AssetJson }>(`/api/dashboard/assets/${assetId}`)).data,
    refetchInterval: (query) => (query.state.data?.status === 'preparing' ? PREPARING_POLL_MS : false),
  });
