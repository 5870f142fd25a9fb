import { getDb } from '../../db/client';
import type { AnalyticsTimeframe, BreakdownDimension, BreakdownRowJson } from '../../schemas/dashboard-analytics';
import { metricBreakdown } from '../analytics/data-api';

const ROWS = 10;
const STARTUP_ROWS = 100;

const titleOf = (metaJson: string | null): string | undefined => {
  try {
    const title: unknown = metaJson ? (JSON.parse(metaJson) as { title?: unknown }).title : undefined;
    return typeof title === 'string' && title ? title : undefined;
  } catch {
    return undefined;
  }
};

// Assets are listed by title where they have one; deleted assets (not found) keep their id.
const assetLabels = async (assetIds: string[]): Promise<Map<string, string>> => {
  const assets = await getDb().asset.findMany({ where: { id: { in: assetIds } }, select: { id: true, metaJson: true } });
  return new Map(assets.map(({ id, metaJson }) => [id, titleOf(metaJson) ?? id]));
};

// The analytics page's breakdown tables: the most watched values of one dimension, with their
// playing time and median startup time.
export const analyticsBreakdown = async (timeframe: AnalyticsTimeframe, dimension: BreakdownDimension): Promise<BreakdownRowJson[]> => {
  const query = { timeframe: [timeframe], group_by: dimension, order_by: 'views' as const, order_direction: 'desc' as const, limit: ROWS };
  const views = await metricBreakdown('views', query);
  const fields = views.data.map((row) => row.field);
  const [startup, labels] = await Promise.all([
    // Ordered by views too, so a generous page holds the startup time of every row shown.
    metricBreakdown('video_startup_time', { ...query, limit: STARTUP_ROWS }),
    dimension === 'asset_id' ? assetLabels(fields.filter((field): field is string => field !== null)) : new Map<string, string>(),
  ]);
  const startupByField = new Map(startup.data.map((row) => [row.field, row.value]));
  return views.data.map((row) => ({
    field: row.field,
    label: (row.field !== null && labels.get(row.field)) || (row.field ?? 'Not reported'),
    views: row.views,
    playing_time_ms: row.total_playing_time,
    video_startup_time_ms: startupByField.get(row.field) ?? null,
  }));
};
