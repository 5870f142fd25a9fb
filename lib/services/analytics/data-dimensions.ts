import { DIMENSIONS, isDimension, unknownDimension, type Dimension } from '../../analytics/data-query';
import { getDb } from '../../db/client';
import { resolveViewQuery } from './view-where';

// GET /data/v1/dimensions and /data/v1/dimensions/{DIMENSION_ID} (mux-api-2.md §7.5): which
// dimensions views can be filtered and broken down by, and the values one of them takes.

// Mux's split: the everyday dimensions, and those that need a closer look.
const ADVANCED: ReadonlySet<Dimension> = new Set(['browser_version', 'operating_system_version', 'player_software', 'player_error_code']);

export function listDimensions(): { total_row_count: null; timeframe: [number, number]; data: { basic: string[]; advanced: string[] } } {
  const names = Object.keys(DIMENSIONS) as Dimension[];
  return {
    total_row_count: null,
    timeframe: resolveViewQuery({}).timeframe,
    data: { basic: names.filter((name) => !ADVANCED.has(name)), advanced: names.filter((name) => ADVANCED.has(name)) },
  };
}

type DimensionValue = { value: string; total_count: number };

/** The values of one dimension among the views of the timeframe and filters, most views first. */
export async function listDimensionValues(
  dimension: string,
  query: { timeframe?: string[]; filters?: string[]; limit?: number; page?: number },
): Promise<{ total_row_count: number; timeframe: [number, number]; data: DimensionValue[] }> {
  if (!isDimension(dimension)) throw unknownDimension(dimension);
  const column = DIMENSIONS[dimension];
  const { timeframe, where } = resolveViewQuery(query);
  const groups = await getDb().playbackView.groupBy({ by: [column], where: { ...where, [column]: { not: null } }, _count: { _all: true } });
  const values = groups
    .map((group) => ({ value: String((group as Record<string, unknown>)[column]), total_count: group._count._all }))
    .sort((a, b) => b.total_count - a.total_count || a.value.localeCompare(b.value));
  const limit = query.limit ?? 25;
  const page = query.page ?? 1;
  return { total_row_count: values.length, timeframe, data: values.slice((page - 1) * limit, page * limit) };
}
