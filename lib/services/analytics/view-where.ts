import { parseFilters, parseTimeframe, type ViewFilter } from '../../analytics/data-query';
import type { Prisma } from '../../db/generated/client';

// The views a Data API query covers: those whose view end lies in the timeframe (Mux aggregates
// by view end; an open view counts with its latest beacon as its end), narrowed by the filters.

export const filterWhere = ({ column, value, exclude }: ViewFilter): Prisma.PlaybackViewWhereInput =>
  // A view without the dimension matches an exclusion (SQL's NOT would drop it).
  exclude ? { OR: [{ [column]: { not: value } }, { [column]: null }] } : { [column]: value };

export type ResolvedQuery = { timeframe: [number, number]; where: Prisma.PlaybackViewWhereInput };

export const resolveViewQuery = (query: { timeframe?: string[]; filters?: string[] }, { withFilters = true } = {}): ResolvedQuery => {
  const timeframe = parseTimeframe(query.timeframe);
  const filters = withFilters ? parseFilters(query.filters) : [];
  const where: Prisma.PlaybackViewWhereInput = {
    viewEnd: { gte: new Date(timeframe[0] * 1000), lte: new Date(timeframe[1] * 1000 + 999) },
    AND: filters.map(filterWhere),
  };
  return { timeframe, where };
};
