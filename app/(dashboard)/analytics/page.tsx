import { AnalyticsPage } from '@/components/analytics/analytics-page';

export default function Page() {
  return <AnalyticsPage />;
}
