'use client';

import { useQuery } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { AssetJson } from './dashboard-types';
import { PREPARING_POLL_MS, queryKeys } from './query-keys';

export const useAsset = (assetId: string) =>
  useQuery({
    queryKey: queryKeys.asset(assetId),
    queryFn: async () => (await apiFetch<{ data: AssetJson }>(`/api/dashboard/assets/${assetId}`)).data,
    refetchInterval: (query) => (isPreparingAnything(query.state.data) ? PREPARING_POLL_MS : false),
  });

// The asset itself, one of its MP4s, its master or one of its tracks being made: the page follows
// until it is done.
const isPreparingAnything = (asset: AssetJson | undefined): boolean =>
  asset !== undefined &&
  (asset.status === 'preparing' ||
    asset.static_renditions?.status === 'preparing' ||
    asset.master?.status === 'preparing' ||
    (asset.tracks ?? []).some((track) => 'status' in track && track.status === 'preparing'));
