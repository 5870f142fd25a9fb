import { getDb } from '../../db/client';
import { containsIgnoringCase } from '../../db/text-filters';
import type { AssetRecord } from '../../schemas/asset';
import { assetInclude } from '../records/asset-record';

export const ASSET_STATUSES = ['preparing', 'ready', 'errored'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

// The dashboard's asset table: newest first, filtered by status and by a search term matched
// against the id or the stored meta (where the title lives), with a total for page numbers. Kept
// apart from listAssets, whose paging follows Mux's API exactly.
export const searchAssets = async ({
  search,
  status,
  page,
  limit,
}: {
  search?: string;
  status?: AssetStatus;
  page: number;
  limit: number;
}): Promise<{ assets: AssetRecord[]; total: number; preparing: number }> => {
  const term = search?.trim();
  // `meta` is stored as JSON text; a substring match on it finds titles (and, harmlessly, other
  // meta values) without a separate column.
  const where = {
    ...(status && { status }),
    ...(term && { OR: [{ id: containsIgnoringCase(term) }, { metaJson: containsIgnoringCase(term) }] }),
  };
  const db = getDb();
  const [assets, total, preparing] = await Promise.all([
    db.asset.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (page - 1) * limit,
      take: limit,
      include: assetInclude,
    }),
    db.asset.count({ where }),
    db.asset.count({ where: { ...where, status: 'preparing' } }),
  ]);
  return { assets, total, preparing };
};
