import type { AnalyticsTimeframe, PlaybackErrorJson } from '../../schemas/dashboard-analytics';
import { listErrors } from '../analytics/data-errors';

const ROWS = 10;

// The analytics page's playback errors: the most frequent error types of the timeframe.
export const analyticsErrors = async (timeframe: AnalyticsTimeframe): Promise<PlaybackErrorJson[]> =>
  (await listErrors({ timeframe: [timeframe] })).data.slice(0, ROWS).map((row) => ({
    id: row.id,
    code: row.player_error_code,
    message: row.message,
    views: row.count,
    percentage: row.percentage,
    last_seen: row.last_seen,
  }));
