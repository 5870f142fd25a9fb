// An access token as the dashboard's JSON routes and `keyframe tokens list --json` show it: never
// its secret (the one exception is the answer that creates it).
export const TOKEN_PERMISSIONS = ['read_write', 'read_only'] as const;
export type TokenPermission = (typeof TOKEN_PERMISSIONS)[number];

/** A stored permission as a TokenPermission: anything but read-only may write (as it always could). */
export const tokenPermission = (stored: string): TokenPermission => (stored === 'read_only' ? 'read_only' : 'read_write');

type AccessTokenRow = { id: string; name: string; permission: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };

export const serializeAccessToken = (token: AccessTokenRow) => ({
  id: token.id,
  name: token.name,
  permission: tokenPermission(token.permission),
  created_at: token.createdAt.toISOString(),
  last_used_at: token.lastUsedAt?.toISOString() ?? null,
  revoked_at: token.revokedAt?.toISOString() ?? null,
});

export type AccessTokenJson = ReturnType<typeof serializeAccessToken>;

export const serializeCreatedAccessToken = (token: { id: string; secret: string; name: string; permission: string; createdAt: Date }) => ({
  id: token.id,
  secret: token.secret,
  name: token.name,
  permission: tokenPermission(token.permission),
  created_at: token.createdAt.toISOString(),
});

export type CreatedAccessTokenJson = ReturnType<typeof serializeCreatedAccessToken>;
