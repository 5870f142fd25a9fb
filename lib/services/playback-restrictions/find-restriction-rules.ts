import type { RestrictionRules } from '../../auth/playback-restriction-check';
import { getDb } from '../../db/client';
import { cachedRestrictionRules } from './restriction-rules-cache';

// The rules of a playback restriction as the playback path checks them on every request of a
// restricted viewer, kept in memory; updating or deleting the restriction drops them at once, so
// changes apply to tokens already issued from the next request on.

export const findRestrictionRules = (restrictionId: string): Promise<RestrictionRules | null> =>
  cachedRestrictionRules().get(restrictionId, async () => {
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
