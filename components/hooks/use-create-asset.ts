'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { AssetJson, NewAssetSettings } from './dashboard-types';
import { queryKeys } from './query-keys';

export const useCreateAsset = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: NewAssetSettings & { url: string; title?: string }) => {
      const { url, title, ...settings } = input;
      const body = { ...settings, inputs: [{ url }], ...(title ? { meta: { title } } : {}) };
      return (await apiFetch<{ data: AssetJson }>('/api/dashboard/assets', { method: 'POST', body })).data;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.assets }),
  });
};
