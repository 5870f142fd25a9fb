'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { AccessTokenJson, CreatedAccessToken } from './dashboard-types';
import { queryKeys } from './query-keys';

export const useAccessTokens = () =>
  useQuery({
    queryKey: queryKeys.accessTokens,
    queryFn: async () => (await apiFetch<{ data: AccessTokenJson[] }>('/api/dashboard/access-tokens')).data,
  });

export const useCreateAccessToken = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name: string; permission: AccessTokenJson['permission'] }) =>
      (await apiFetch<{ data: CreatedAccessToken }>('/api/dashboard/access-tokens', { method: 'POST', body })).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.accessTokens }),
  });
};

export const useRevokeAccessToken = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) => apiFetch(`/api/dashboard/access-tokens/${tokenId}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.accessTokens }),
  });
};
