import { WebhooksPage } from '@/components/webhooks/webhooks-page';

export default function Page() {
  return <WebhooksPage />;
}
