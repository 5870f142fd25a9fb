import { UploadsPage } from '@/components/uploads/uploads-page';

export default function Page() {
  return <UploadsPage />;
}
