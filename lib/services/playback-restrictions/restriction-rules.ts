import type { z } from 'zod';
import type { referrerRulesSchema, userAgentRulesSchema } from '../../schemas/playback-restriction';

// Column values for the rules a request sets; rules left out keep their current (or default)
// value. Defaults as on Mux: no referrer refused, requests without a user agent and from
// high-risk user agents allowed, and an empty domain list denies every site.

export type ReferrerRules = z.infer<typeof referrerRulesSchema>;
export type UserAgentRules = z.infer<typeof userAgentRulesSchema>;

export const referrerData = (rules: ReferrerRules | undefined) =>
  rules && {
    allowedDomainsJson: JSON.stringify(rules.allowed_domains.map((domain) => domain.toLowerCase())),
    ...(rules.allow_no_referrer !== undefined && { allowNoReferrer: rules.allow_no_referrer }),
  };

export const userAgentData = (rules: UserAgentRules | undefined) =>
  rules && {
    ...(rules.allow_no_user_agent !== undefined && { allowNoUserAgent: rules.allow_no_user_agent }),
    ...(rules.allow_high_risk_user_agent !== undefined && { allowHighRiskUserAgent: rules.allow_high_risk_user_agent }),
  };
