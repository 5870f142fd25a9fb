import type { RestrictionRules } from '../../auth/playback-restriction-check';
import { getDb } from '../../db/client';
import { LookupCache } from '../../utils/lookup-cache';
import { processSingleton } from '../../utils/process-singleton';

// The rules of a playback restriction as the playback path checks them on every request of a
// restricted viewer, kept in memory; updating or deleting the restriction drops them at once, so
// changes apply to tokens already issued from the next request on.

type CachedRules = RestrictionRules & { restrictionId: string };

const RULES_TTL_MS = 60_000;

const cachedRules = () =>
  processSingleton('restriction-rules', () => new LookupCache<CachedRules>({ maxEntries: 10_000, ttlMs: RULES_TTL_MS }));

export const findRestrictionRules = (restrictionId: string): Promise<RestrictionRules | null> =>
  cachedRules().get(restrictionId, async () => {
    const restriction = await getDb().playbackRestriction.findUnique({ where: { id: restrictionId } });
    if (!restriction) return null;
    return {
      restrictionId,
      allowedDomains: JSON.parse(restriction.allowedDomainsJson) as string[],
      allowNoReferrer: restriction.allowNoReferrer,
      allowNoUserAgent: restriction.allowNoUserAgent,
      allowHighRiskUserAgent: restriction.allowHighRiskUserAgent,
    };
  });

export const forgetRestrictionRules = (restrictionId: string): void => cachedRules().forget(restrictionId);
