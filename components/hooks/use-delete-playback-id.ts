'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import { queryKeys } from './query-keys';

export const useDeletePlaybackId = (assetId: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (playbackId: string) =>
      apiFetch<void>(`/api/dashboard/assets/${assetId}/playback-ids/${playbackId}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.asset(assetId) }),
  });
};
