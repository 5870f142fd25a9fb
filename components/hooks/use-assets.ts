'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { AssetPage } from './dashboard-types';
import { PREPARING_POLL_MS, queryKeys } from './query-keys';

export const ASSETS_PAGE_SIZE = 25;

export const useAssets = (params: { search: string; status: string; page: number }) =>
  useQuery({
    queryKey: queryKeys.assetList(params),
    queryFn: () => {
      const query = new URLSearchParams({ page: String(params.page), limit: String(ASSETS_PAGE_SIZE) });
      if (params.search) query.set('search', params.search);
      if (params.status) query.set('status', params.status);
      return apiFetch<AssetPage>(`/api/dashboard/assets?${query}`);
    },
    placeholderData: keepPreviousData,
    refetchInterval: (query) => ((query.state.data?.preparing ?? 0) > 0 ? PREPARING_POLL_MS : false),
  });
