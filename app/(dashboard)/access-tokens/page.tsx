import { AccessTokensPage } from '@/components/access-tokens/access-tokens-page';

export default function Page() {
  return <AccessTokensPage />;
}
