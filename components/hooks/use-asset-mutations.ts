'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { AssetJson } from './dashboard-types';
import { queryKeys } from './query-keys';

// Changes made from the asset page; each refreshes the asset, whose polling then follows the
// files and the master while they are prepared.

export const useAssetMutation = <Input, Output>(assetId: string, request: (input: Input) => Promise<Output>) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.asset(assetId) }),
  });
};

export const useAddStaticRendition = (assetId: string) =>
  useAssetMutation(assetId, (resolution: string) =>
    apiFetch(`/api/dashboard/assets/${assetId}/static-renditions`, { method: 'POST', body: { resolution } }),
  );

export const useDeleteStaticRendition = (assetId: string) =>
  useAssetMutation(assetId, (renditionId: string) =>
    apiFetch<void>(`/api/dashboard/assets/${assetId}/static-renditions/${renditionId}`, { method: 'DELETE' }),
  );

export const useSetMasterAccess = (assetId: string) =>
  useAssetMutation(assetId, (masterAccess: 'temporary' | 'none') =>
    apiFetch(`/api/dashboard/assets/${assetId}/master-access`, { method: 'PUT', body: { master_access: masterAccess } }),
  );

export type ClipRequest = { startTime: number; endTime: number; title?: string };

/** A clip is a new asset cut from this one, with a public playback ID like the source's preview. */
export const useCreateClip = (assetId: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ startTime, endTime, title }: ClipRequest) => {
      const body = {
        inputs: [{ url: `mux://assets/${assetId}`, start_time: startTime, end_time: endTime }],
        playback_policies: ['public'],
        ...(title ? { meta: { title } } : {}),
      };
      return (await apiFetch<{ data: AssetJson }>('/api/dashboard/assets', { method: 'POST', body })).data;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.assets }),
  });
};
