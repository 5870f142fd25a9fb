import { z } from 'zod';
import { unixSeconds } from './common';

// Playback restrictions on the wire (mux-api.md §4.3).

const DOMAIN = /^(\*|(\*\.)?([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)$/i;

export const referrerRulesSchema = z.object({
  allowed_domains: z
    .array(z.string().regex(DOMAIN, { error: 'must be a host name, "*.example.com" or "*"' }), {
      error: 'must be an array of domains',
    })
    .max(10, { error: 'must list at most 10 domains' }),
  allow_no_referrer: z.boolean().optional(),
});

export const userAgentRulesSchema = z.object({
  allow_no_user_agent: z.boolean().optional(),
  allow_high_risk_user_agent: z.boolean().optional(),
});

export const createPlaybackRestrictionSchema = z.object({
  referrer: referrerRulesSchema.optional(),
  user_agent: userAgentRulesSchema.optional(),
});

export type PlaybackRestrictionRecord = {
  id: string;
  allowedDomainsJson: string;
  allowNoReferrer: boolean;
  allowNoUserAgent: boolean;
  allowHighRiskUserAgent: boolean;
  createdAt: Date;
  updatedAt: Date;
};

export const serializePlaybackRestriction = (restriction: PlaybackRestrictionRecord) => ({
  id: restriction.id,
  created_at: unixSeconds(restriction.createdAt),
  updated_at: unixSeconds(restriction.updatedAt),
  referrer: {
    allowed_domains: JSON.parse(restriction.allowedDomainsJson) as string[],
    allow_no_referrer: restriction.allowNoReferrer,
  },
  user_agent: {
    allow_no_user_agent: restriction.allowNoUserAgent,
    allow_high_risk_user_agent: restriction.allowHighRiskUserAgent,
  },
});
