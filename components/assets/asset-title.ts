import type { AssetJson } from '../hooks/dashboard-types';

export const assetTitle = (asset: AssetJson): string => asset.meta?.title || asset.id;
