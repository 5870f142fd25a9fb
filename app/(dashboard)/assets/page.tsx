import { AssetsPage } from '@/components/assets/assets-page';

export default function Page() {
  return <AssetsPage />;
}
