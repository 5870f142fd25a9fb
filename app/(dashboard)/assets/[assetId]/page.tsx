import { AssetDetail } from '@/components/assets/asset-detail';

export default async function Page({ params }: { params: Promise<{ assetId: string }> }) {
  const { assetId } = await params;
  return <AssetDetail assetId={assetId} />;
}
