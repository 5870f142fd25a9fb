// Which database a client talks to, as lib/env parses it from DATABASE_URL (declared here, by the
// layer that uses it, so lib/db needs nothing from the env module).
export type DatabaseConfig =
  | { provider: 'sqlite'; filePath: string; label: string }
  // `url` without Prisma's `schema` parameter (which libpq does not know); `schema` is where the
  // tables live (search_path), `public` unless the URL says otherwise.
  | { provider: 'postgresql'; url: string; schema: string; label: string };
