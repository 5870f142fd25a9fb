import { ApiError } from '../../errors/api-error';
import { clipRangeQuery, parseClipRange, type ClipRange } from '../../media/hls/instant-clip';

/** The instant-clip range of a playlist request (query values or token claims); null for none. 400 when malformed. */
export const clipRangeOf = ({ start, end }: { start: unknown; end: unknown }): ClipRange | null => {
  const parsed = parseClipRange(start, end);
  if (!parsed.ok) throw new ApiError('invalid_parameters', parsed.message);
  return parsed.range;
};

/** A playlist request's instant-clip query (public playback IDs; a token's claims take their place for signed ones). */
export type ClipRangeQuery = { assetStartTime?: string; assetEndTime?: string };

/**
 * The clip a playlist request asks for: a signed playback ID's from its token's claims (or the
 * proof made from them, see playback-proof.ts), never the query; a public one's from the query.
 */
export const requestedClipRange = (
  { signed, claims }: { signed: boolean; claims: Record<string, unknown> },
  query: ClipRangeQuery,
): ClipRange | null =>
  clipRangeOf(signed ? { start: claims.asset_start_time, end: claims.asset_end_time } : { start: query.assetStartTime, end: query.assetEndTime });

/** Appends the range to a playlist URI that may already carry a query (the signed playlist proof). */
export const withClipRange = (uri: string, range: ClipRange | null): string => {
  const query = clipRangeQuery(range);
  if (!query) return uri;
  return `${uri}${uri.includes('?') ? '&' : '?'}${query}`;
};
