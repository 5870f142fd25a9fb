/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and worker-spawning modules are loaded by Node at runtime rather than bundled; so is
  // prom-client, so the server entry and the bundle share one copy (and one metrics registry).
  serverExternalPackages: ['better-sqlite3', '@prisma/adapter-better-sqlite3', 'pg', '@prisma/adapter-pg', 'pino', 'prom-client'],
  poweredByHeader: false,
  typedRoutes: false,
  // `npm test` type-checks the whole project with `tsc` first; skipping the duplicate check here
  // keeps the first `npm start` build short.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
