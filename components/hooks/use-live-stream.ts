'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { CreateSimulcastTargetBody, LiveStreamJson, LiveStreamRecordingJson, LiveStreamWithIngest, SimulcastTargetJson } from './dashboard-types';
import { LIVE_STATUS_POLL_MS, PREPARING_POLL_MS, queryKeys } from './query-keys';

export const useLiveStream = (liveStreamId: string) =>
  useQuery({
    queryKey: queryKeys.liveStream(liveStreamId),
    queryFn: () => apiFetch<LiveStreamWithIngest>(`/api/dashboard/live-streams/${liveStreamId}`),
    refetchInterval: (query) => (query.state.status === 'error' ? false : LIVE_STATUS_POLL_MS),
  });

// A recording changes while its broadcast runs and while it is prepared afterwards; once every
// one is settled the list waits for the stream to report a new one (`recentAssetIds` changes).
export const useLiveStreamRecordings = (liveStreamId: string, recentAssetIds: string[]) =>
  useQuery({
    queryKey: [...queryKeys.liveStreamRecordings(liveStreamId), recentAssetIds.join(' ')],
    queryFn: async () =>
      (await apiFetch<{ data: LiveStreamRecordingJson[] }>(`/api/dashboard/live-streams/${liveStreamId}/recordings`)).data,
    enabled: recentAssetIds.length > 0,
    refetchInterval: (query) =>
      (query.state.data ?? []).some(({ asset }) => asset !== null && (asset.is_live === true || asset.status === 'preparing'))
        ? PREPARING_POLL_MS
        : false,
  });

export type LiveStreamAction = 'complete' | 'disable' | 'enable' | 'reset-stream-key';

const ACTION_METHODS: Record<LiveStreamAction, string> = {
  complete: 'PUT',
  disable: 'PUT',
  enable: 'PUT',
  'reset-stream-key': 'POST',
};

export const useLiveStreamAction = (liveStreamId: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (action: LiveStreamAction) =>
      (await apiFetch<{ data: LiveStreamJson }>(`/api/dashboard/live-streams/${liveStreamId}/${action}`, { method: ACTION_METHODS[action] })).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.liveStreams }),
  });
};

export const useDeleteLiveStream = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (liveStreamId: string) => apiFetch<void>(`/api/dashboard/live-streams/${liveStreamId}`, { method: 'DELETE' }),
    // Only the table: the stream's own page is left for good and must not ask for it again.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.liveStreamLists }),
  });
};

// A stream's simulcast targets are part of the stream: adding or removing one refreshes its page.
export const useCreateSimulcastTarget = (liveStreamId: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateSimulcastTargetBody) =>
      (await apiFetch<{ data: SimulcastTargetJson }>(`/api/dashboard/live-streams/${liveStreamId}/simulcast-targets`, { method: 'POST', body })).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.liveStream(liveStreamId) }),
  });
};

export const useDeleteSimulcastTarget = (liveStreamId: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (simulcastTargetId: string) =>
      apiFetch<void>(`/api/dashboard/live-streams/${liveStreamId}/simulcast-targets/${simulcastTargetId}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.liveStream(liveStreamId) }),
  });
};
