import type { RestrictionRules } from '../../auth/playback-restriction-check';
import { nodeRuntime } from '../../runtime/node-runtime';
import { LookupCache } from '../../utils/lookup-cache';

// The rules of playback restrictions as the playback path checks them, read through by
// findRestrictionRules (find-restriction-rules.ts). Kept apart from that lookup so that what drops
// them (updating or deleting the restriction, another node's word of it) imports this cache and
// nothing more.

export type CachedRules = RestrictionRules & { restrictionId: string };

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    /** By restriction id. */
    restrictionRules: LookupCache<CachedRules>;
  }
}

const RULES_TTL_MS = 60_000;

export const createRestrictionRules = () => new LookupCache<CachedRules>({ maxEntries: 10_000, ttlMs: RULES_TTL_MS });

export const cachedRestrictionRules = (): LookupCache<CachedRules> => nodeRuntime().restrictionRules;

export const forgetRestrictionRules = (restrictionId: string): void => cachedRestrictionRules().forget(restrictionId);
