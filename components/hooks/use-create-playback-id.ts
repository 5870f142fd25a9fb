'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { PlaybackPolicy } from './dashboard-types';
import { queryKeys } from './query-keys';

export const useCreatePlaybackId = (assetId: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (policy: PlaybackPolicy) =>
      apiFetch(`/api/dashboard/assets/${assetId}/playback-ids`, { method: 'POST', body: { policy } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.asset(assetId) }),
  });
};
