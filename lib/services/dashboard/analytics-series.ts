import type { AnalyticsPointJson, AnalyticsSeriesJson, AnalyticsTimeframe } from '../../schemas/dashboard-analytics';
import { metricTimeseries } from '../analytics/data-api';
import { intervalsOf, valuesByInterval, type Granularity } from './analytics-intervals';

const GRANULARITY: Record<AnalyticsTimeframe, Granularity> = {
  '1:hours': 'minute',
  '24:hours': 'hour',
  '7:days': 'hour',
  '30:days': 'day',
};

// The analytics page's charts: views, playing time, median startup time and rebuffering per
// interval, one Data API timeseries per metric joined on the interval.
export const analyticsSeries = async (timeframe: AnalyticsTimeframe): Promise<AnalyticsSeriesJson> => {
  const granularity = GRANULARITY[timeframe];
  const query = { timeframe: [timeframe], group_by: granularity };
  const [views, playingTime, startupTime, rebuffering] = await Promise.all([
    metricTimeseries('views', query),
    metricTimeseries('playing_time', query),
    metricTimeseries('video_startup_time', query),
    metricTimeseries('rebuffer_percentage', query),
  ]);
  const values = {
    views: valuesByInterval(views.data),
    playingTime: valuesByInterval(playingTime.data),
    startupTime: valuesByInterval(startupTime.data),
    rebuffering: valuesByInterval(rebuffering.data),
  };
  const points = intervalsOf(views.timeframe, granularity).map(
    (at): AnalyticsPointJson => ({
      at: new Date(at).toISOString(),
      views: values.views.get(at) ?? 0,
      playing_time_ms: values.playingTime.get(at) ?? 0,
      video_startup_time_ms: values.startupTime.get(at) ?? null,
      rebuffer_percentage: values.rebuffering.get(at) ?? null,
    }),
  );
  return { granularity, timeframe: views.timeframe, points };
};
