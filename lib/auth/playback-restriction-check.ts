// Playback restrictions (mux-api.md §4.3): which pages may embed a signed playback ID (the
// `Referer`), and whether requests without a user agent or from automation tools are served.

export type RestrictionRules = {
  allowedDomains: string[];
  allowNoReferrer: boolean;
  allowNoUserAgent: boolean;
  allowHighRiskUserAgent: boolean;
};

export type RestrictionCheck = { ok: true } | { ok: false; reason: string };

// Mux does not publish its list; these are HTTP libraries and download tools, i.e. not a browser
// or a player app.
const HIGH_RISK_USER_AGENT = /\b(curl|wget|python-requests|python-urllib|aiohttp|go-http-client|libwww-perl|httpie|scrapy|okhttp|java\/|node-fetch|axios|undici|yt-dlp|youtube-dl|ffmpeg|lavf)\b/i;

const hostOf = (referrer: string): string | null => {
  try {
    return new URL(referrer).hostname.toLowerCase();
  } catch {
    return null;
  }
};

// `*` allows any site, `*.example.com` its subdomains (not example.com itself), anything else one host.
export const domainAllowed = (host: string, allowedDomains: string[]): boolean =>
  allowedDomains.some((pattern) => {
    const domain = pattern.trim().toLowerCase();
    if (domain === '*') return true;
    if (domain.startsWith('*.')) return host.endsWith(domain.slice(1)) && host.length > domain.length - 1;
    return host === domain;
  });

export const checkPlaybackRestriction = (
  rules: RestrictionRules,
  { referrer, userAgent }: { referrer: string | null; userAgent: string | null },
): RestrictionCheck => {
  if (!referrer) {
    if (!rules.allowNoReferrer) return { ok: false, reason: 'Playback without a Referer is not allowed for this playback ID' };
  } else {
    const host = hostOf(referrer);
    if (!host || !domainAllowed(host, rules.allowedDomains)) {
      return { ok: false, reason: `Playback from ${host ?? 'this referrer'} is not allowed for this playback ID` };
    }
  }
  if (!userAgent?.trim()) {
    if (!rules.allowNoUserAgent) return { ok: false, reason: 'Playback without a User-Agent is not allowed for this playback ID' };
  } else if (!rules.allowHighRiskUserAgent && HIGH_RISK_USER_AGENT.test(userAgent)) {
    return { ok: false, reason: 'Playback from this user agent is not allowed for this playback ID' };
  }
  return { ok: true };
};
