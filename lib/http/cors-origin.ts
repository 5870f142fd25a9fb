// Matches a request's `Origin` against an upload's `cors_origin`, which may be exact
// (`https://app.example.com`), `*`, or a wildcard host (`https://*.example.com`, any depth of
// subdomain, scheme and port must match).

const normalize = (origin: string) => origin.trim().replace(/\/+$/, '').toLowerCase();

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

export const originMatches = (allowed: string | null, origin: string | null): boolean => {
  if (!allowed || !origin) return false;
  const pattern = normalize(allowed);
  const candidate = normalize(origin);
  if (pattern === '*') return true;
  if (!pattern.includes('*')) return pattern === candidate;
  const regex = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('[a-z0-9-]+(?:\\.[a-z0-9-]+)*')}$`);
  return regex.test(candidate);
};
