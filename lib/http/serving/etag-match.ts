/** Whether an If-None-Match header names this entity tag (weak comparison, RFC 9110 §8.8.3.2). */
export const etagMatches = (header: string, etag: string): boolean => {
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => opaque(candidate) === etag);
};
