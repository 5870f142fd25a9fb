import type { ViewState } from '../../analytics/view-state';
import { getDb } from '../../db/client';
import { isoSeconds } from '../../schemas/data-api';
import { resolveViewQuery } from './view-where';

// GET /data/v1/errors (mux-api-2.md §7.5): the fatal playback errors of the views in the
// timeframe and filters, one row per error type (see errorTypeIdOf), most frequent first, with
// the share of all those views that had it and the message of its latest occurrence.

export type ErrorRow = {
  id: number;
  code: number | null;
  player_error_code: string | null;
  message: string | null;
  description: null;
  notes: null;
  count: number;
  percentage: number;
  last_seen: string;
};

export async function listErrors(query: { timeframe?: string[]; filters?: string[] }): Promise<{ total_row_count: number; timeframe: [number, number]; data: ErrorRow[] }> {
  const { timeframe, where } = resolveViewQuery(query);
  const db = getDb();
  const [views, errored] = await Promise.all([
    db.playbackView.count({ where }),
    db.playbackView.findMany({
      where: { ...where, errorTypeId: { not: null } },
      select: { errorTypeId: true, errorCode: true, viewEnd: true, stateJson: true },
      orderBy: { viewEnd: 'desc' },
    }),
  ]);
  const rows = new Map<number, ErrorRow>();
  for (const view of errored) {
    const id = view.errorTypeId as number;
    const row = rows.get(id);
    if (row) {
      row.count += 1;
      continue;
    }
    // The latest view of each type comes first: its message is the error's.
    const message = (JSON.parse(view.stateJson) as ViewState).lastError?.message ?? null;
    rows.set(id, {
      id,
      code: view.errorCode !== null && /^-?\d{1,9}$/.test(view.errorCode) ? Number(view.errorCode) : null,
      player_error_code: view.errorCode,
      message,
      description: null,
      notes: null,
      count: 1,
      percentage: 0,
      last_seen: isoSeconds(view.viewEnd),
    });
  }
  const data = [...rows.values()]
    .map((row) => ({ ...row, percentage: views === 0 ? 0 : row.count / views }))
    .sort((a, b) => b.count - a.count || a.id - b.id);
  return { total_row_count: data.length, timeframe, data };
}
