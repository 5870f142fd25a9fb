import type { PrismaClient } from './generated/client';
import type { PrismaClient as PostgresPrismaClient } from './generated-pg/client';

// A compile-time check that two generated Prisma clients have the same models with the same row
// shapes (field names, scalar types, nullability): `SameModels<A, B>` is `true` when they match and
// `never` otherwise, so assigning `true` to it fails to compile after a divergence.

type ModelKeys<Client> = {
  [Key in keyof Client]: Key extends `$${string}` ? never : Client[Key] extends { findFirstOrThrow: unknown } ? Key : never;
}[keyof Client];

type Row<Delegate> = Delegate extends { findFirstOrThrow: (...args: never[]) => infer Result } ? Awaited<Result> : never;

type Rows<Client> = { [Key in ModelKeys<Client>]: Row<Client[Key]> };

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export type SameModels<A, B> = Equal<Rows<A>, Rows<B>> extends true ? true : never;

// The check itself, for the two clients lib/db/client.ts treats as one Db. This file is compiled
// (tsc checks every file) but imported by nothing: it costs the running server nothing.
const postgresClientHasTheSameModels: SameModels<PrismaClient, PostgresPrismaClient> = true;
void postgresClientHasTheSameModels;
