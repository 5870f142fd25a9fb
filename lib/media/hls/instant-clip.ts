// Instant clips: `asset_start_time` / `asset_end_time` on a playback URL (or in a signed token's
// claims) limit a playlist to the segments that overlap the range. Like Mux, this works at
// segment granularity: the clip may start and end up to a segment outside the range.

export type ClipRange = { start: number | null; end: number | null };

export type ClipRangeParse = { ok: true; range: ClipRange | null } | { ok: false; message: string };

const parseTime = (name: string, value: unknown): { ok: true; value: number | null } | { ok: false; message: string } => {
  if (value === undefined || value === null || value === '') return { ok: true, value: null };
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(number) || number < 0) return { ok: false, message: `${name} must be a number of seconds, 0 or more` };
  return { ok: true, value: number };
};

/** The range asked for; `range: null` when neither end is given. */
export const parseClipRange = (start: unknown, end: unknown): ClipRangeParse => {
  const parsedStart = parseTime('asset_start_time', start);
  if (!parsedStart.ok) return parsedStart;
  const parsedEnd = parseTime('asset_end_time', end);
  if (!parsedEnd.ok) return parsedEnd;
  if (parsedStart.value === null && parsedEnd.value === null) return { ok: true, range: null };
  if (parsedStart.value !== null && parsedEnd.value !== null && parsedEnd.value <= parsedStart.value) {
    return { ok: false, message: 'asset_end_time must be greater than asset_start_time' };
  }
  return { ok: true, range: { start: parsedStart.value, end: parsedEnd.value } };
};

/** Indices [from, to) of the segments (given by their durations, back to back from 0) overlapping the range. */
export const segmentsInRange = (durations: readonly number[], range: ClipRange): { from: number; to: number } => {
  const start = range.start ?? 0;
  const end = range.end ?? Number.POSITIVE_INFINITY;
  let from = -1;
  let to = 0;
  let at = 0;
  durations.forEach((duration, index) => {
    const segmentEnd = at + duration;
    if (segmentEnd > start && at < end) {
      if (from === -1) from = index;
      to = index + 1;
    }
    at = segmentEnd;
  });
  return from === -1 ? { from: 0, to: 0 } : { from, to };
};

/** The query string carrying the range to the URLs of a multivariant playlist ('' for none). */
export const clipRangeQuery = (range: ClipRange | null): string => {
  if (!range) return '';
  const params = new URLSearchParams();
  if (range.start !== null) params.set('asset_start_time', String(range.start));
  if (range.end !== null) params.set('asset_end_time', String(range.end));
  return params.toString();
};

/** A short key for caches of rendered playlists ('' for none). */
export const clipRangeKey = (range: ClipRange | null): string => (range ? `${range.start ?? ''}-${range.end ?? ''}` : '');
