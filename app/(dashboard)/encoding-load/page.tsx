import { EncodingLoadPage } from '@/components/encoding-load/encoding-load-page';

export default function Page() {
  return <EncodingLoadPage />;
}
