'use client';

import { useQuery } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { EncodingLoadJson } from './dashboard-types';
import { ENCODING_LOAD_POLL_MS, queryKeys } from './query-keys';

// The status strip and the encoding-load page share this query, so one request per interval
// serves both.
export const useEncodingLoad = () =>
  useQuery({
    queryKey: queryKeys.encodingLoad,
    queryFn: async () => (await apiFetch<{ data: EncodingLoadJson }>('/api/encoding-load')).data,
    refetchInterval: ENCODING_LOAD_POLL_MS,
    staleTime: 0,
  });
