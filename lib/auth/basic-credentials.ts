// Parses `Authorization: Basic base64(id:secret)`; returns null for anything else.
export const parseBasicCredentials = (header: string | null): { id: string; secret: string } | null => {
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator <= 0) return null;
  return { id: decoded.slice(0, separator), secret: decoded.slice(separator + 1) };
};
