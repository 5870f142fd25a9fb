import type { AnalyticsSummaryJson, AnalyticsTimeframe } from '../../schemas/dashboard-analytics';
import { metricOverall } from '../analytics/data-api';

// The analytics page's headline numbers (and an asset's, with an asset_id filter): one Data API
// overall value per metric, each with Mux's default measurement; watch and playing time ride along
// with every overall answer.
export const analyticsSummary = async (timeframe: AnalyticsTimeframe, filters: string[] = []): Promise<AnalyticsSummaryJson> => {
  const query = { timeframe: [timeframe], filters };
  const [views, uniqueViewers, startupTime, rebuffering, exits] = await Promise.all([
    metricOverall('views', query),
    metricOverall('unique_viewers', query),
    metricOverall('video_startup_time', query),
    metricOverall('rebuffer_percentage', query),
    metricOverall('exits_before_video_start', query),
  ]);
  return {
    views: views.data.total_views,
    unique_viewers: uniqueViewers.data.value ?? 0,
    playing_time_ms: views.data.total_playing_time,
    watch_time_ms: views.data.total_watch_time,
    video_startup_time_ms: startupTime.data.value,
    rebuffer_percentage: rebuffering.data.value,
    exits_before_video_start: exits.data.value ?? 0,
  };
};
