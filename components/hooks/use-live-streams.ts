'use client';

import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { LiveStreamJson, LiveStreamPage, NewLiveStream } from './dashboard-types';
import { LIVE_STATUS_POLL_MS, queryKeys } from './query-keys';

export const LIVE_STREAMS_PAGE_SIZE = 25;

export const useLiveStreams = (page: number) =>
  useQuery({
    queryKey: queryKeys.liveStreamList(page),
    queryFn: () => apiFetch<LiveStreamPage>(`/api/dashboard/live-streams?page=${page}&limit=${LIVE_STREAMS_PAGE_SIZE}`),
    placeholderData: keepPreviousData,
    refetchInterval: LIVE_STATUS_POLL_MS,
  });

// The form's choices as the API's create body: recording uses the stream's own playback policy,
// so a signed stream never records to a publicly playable asset.
const createBody = ({ title, latency_mode, reconnect_window, playback_policy, record, captions }: NewLiveStream) => ({
  latency_mode,
  playback_policies: [playback_policy],
  ...(reconnect_window !== undefined && { reconnect_window }),
  ...(record && { new_asset_settings: { playback_policies: [playback_policy] } }),
  ...(captions && { generated_subtitles: [{ language_code: 'en' }] }),
  ...(title && { meta: { title } }),
});

export const useCreateLiveStream = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: NewLiveStream) =>
      (await apiFetch<{ data: LiveStreamJson }>('/api/dashboard/live-streams', { method: 'POST', body: createBody(input) })).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.liveStreams }),
  });
};
