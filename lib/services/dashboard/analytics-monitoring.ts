import { KEYFRAME_ENV_KEY } from '../../analytics/environment';
import { getEnv } from '../../env';
import type { MonitoringConfigJson } from '../../schemas/dashboard-analytics';

// What the dashboard's preview player gives mux-embed, so previews are counted like embedded views.
export const analyticsMonitoring = (): MonitoringConfigJson => ({
  beacon_collection_domain: getEnv().data.collectorDomain,
  env_key: KEYFRAME_ENV_KEY,
});
