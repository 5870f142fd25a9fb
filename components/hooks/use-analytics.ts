'use client';

import { useQuery } from '@tanstack/react-query';
import type {
  AnalyticsSeriesJson,
  AnalyticsSummaryJson,
  AnalyticsTimeframe,
  BreakdownDimension,
  BreakdownRowJson,
  PlaybackErrorJson,
} from '@/lib/schemas/dashboard-analytics';
import { apiFetch } from './api-fetch';
import { ANALYTICS_POLL_MS, queryKeys, VIEWERS_NOW_POLL_MS } from './query-keys';

const analyticsGet = async <T>(path: string, params: Record<string, string>): Promise<T> =>
  (await apiFetch<{ data: T }>(`/api/dashboard/analytics/${path}?${new URLSearchParams(params).toString()}`)).data;

export const useAnalyticsSummary = (timeframe: AnalyticsTimeframe) =>
  useQuery({
    queryKey: queryKeys.analyticsSummary(timeframe),
    queryFn: () => analyticsGet<AnalyticsSummaryJson>('summary', { timeframe }),
    refetchInterval: ANALYTICS_POLL_MS,
  });

export const useAnalyticsSeries = (timeframe: AnalyticsTimeframe) =>
  useQuery({
    queryKey: queryKeys.analyticsSeries(timeframe),
    queryFn: () => analyticsGet<AnalyticsSeriesJson>('timeseries', { timeframe }),
    refetchInterval: ANALYTICS_POLL_MS,
  });

export const useAnalyticsBreakdown = (timeframe: AnalyticsTimeframe, dimension: BreakdownDimension) =>
  useQuery({
    queryKey: queryKeys.analyticsBreakdown(timeframe, dimension),
    queryFn: () => analyticsGet<BreakdownRowJson[]>('breakdown', { timeframe, group_by: dimension }),
    refetchInterval: ANALYTICS_POLL_MS,
  });

export const useAnalyticsErrors = (timeframe: AnalyticsTimeframe) =>
  useQuery({
    queryKey: queryKeys.analyticsErrors(timeframe),
    queryFn: () => analyticsGet<PlaybackErrorJson[]>('errors', { timeframe }),
    refetchInterval: ANALYTICS_POLL_MS,
  });

export const useViewersNow = () =>
  useQuery({
    queryKey: queryKeys.viewersNow,
    queryFn: () => analyticsGet<{ viewers: number }>('viewers-now', {}),
    refetchInterval: VIEWERS_NOW_POLL_MS,
    staleTime: 0,
  });

export const useAssetAnalytics = (assetId: string, timeframe: AnalyticsTimeframe) =>
  useQuery({
    queryKey: queryKeys.assetAnalytics(assetId, timeframe),
    queryFn: () => analyticsGet<AnalyticsSummaryJson>(`assets/${assetId}`, { timeframe }),
    refetchInterval: ANALYTICS_POLL_MS,
  });
