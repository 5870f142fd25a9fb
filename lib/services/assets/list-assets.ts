import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import type { AssetRecord } from '../../schemas/asset';
import { assetInclude } from '../records/asset-record';

export const DEFAULT_PAGE_LIMIT = 25;

type Cursor = { createdAt: number; id: string };

const encodeCursor = (asset: AssetRecord): string =>
  Buffer.from(JSON.stringify({ createdAt: asset.createdAt.getTime(), id: asset.id })).toString('base64url');

const decodeCursor = (cursor: string): Cursor => {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof parsed.createdAt === 'number' && typeof parsed.id === 'string') return { createdAt: parsed.createdAt, id: parsed.id };
  } catch {
    // fall through to the error below
  }
  throw new ApiError('invalid_parameters', 'cursor: is not a cursor returned by this API');
};

// GET /video/v1/assets, newest first. Supports both of Mux's paging styles: `page` numbers (an empty
// page past the end, which older SDKs use to stop) and `cursor`/`next_cursor` (newer SDKs). The
// order is (created_at, id) so a cursor stays exact while assets are being added.
export const listAssets = async ({
  limit = DEFAULT_PAGE_LIMIT,
  page = 1,
  cursor,
  uploadId,
  liveStreamId,
}: {
  limit?: number;
  page?: number;
  cursor?: string;
  uploadId?: string;
  /** Only the recordings of this live stream. */
  liveStreamId?: string;
}): Promise<{ assets: AssetRecord[]; nextCursor: string | undefined }> => {
  const after = cursor ? decodeCursor(cursor) : undefined;
  const afterDate = after ? new Date(after.createdAt) : undefined;
  const rows = await getDb().asset.findMany({
    where: {
      ...(uploadId && { uploadId }),
      ...(liveStreamId && { liveStreamId }),
      ...(after && {
        OR: [{ createdAt: { lt: afterDate } }, { createdAt: afterDate, id: { lt: after.id } }],
      }),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: after ? 0 : (page - 1) * limit,
    take: limit + 1,
    include: assetInclude,
  });
  const assets = rows.slice(0, limit);
  const last = assets.at(-1);
  return { assets, nextCursor: rows.length > limit && last ? encodeCursor(last) : undefined };
};
