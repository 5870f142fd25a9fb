import { databaseProviderOf, getDb, type Db } from './client';

/**
 * A Prisma string filter for "contains `term`, ignoring case", on either provider. SQLite's
 * `contains` (LIKE) already ignores ASCII case and has no `mode` option; PostgreSQL's is
 * case-sensitive unless asked (ILIKE), and its client accepts `mode: 'insensitive'`.
 */
export const containsIgnoringCase = (term: string, db: Db = getDb()): { contains: string } =>
  databaseProviderOf(db) === 'postgresql' ? Object.assign({ contains: term }, { mode: 'insensitive' as const }) : { contains: term };
