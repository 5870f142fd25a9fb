'use client';

import { useQuery } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { RenditionJson } from './dashboard-types';
import { queryKeys, RENDITIONS_POLL_MS } from './query-keys';

export const useAssetRenditions = (assetId: string, enabled: boolean) =>
  useQuery({
    queryKey: queryKeys.assetRenditions(assetId),
    queryFn: async () => (await apiFetch<{ data: RenditionJson[] }>(`/api/dashboard/assets/${assetId}/renditions`)).data,
    enabled,
    refetchInterval: RENDITIONS_POLL_MS,
  });
