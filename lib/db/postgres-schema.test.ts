import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { derivePostgresSchema, postgresSchemaPath, sqliteSchemaPath } from '../setup/generate-postgres-schema.mjs';

describe('prisma/postgres/schema.prisma', () => {
  test('is the SQLite schema with the PostgreSQL provider (run `node lib/setup/generate-postgres-schema.mjs` if this fails)', () => {
    const sqliteSchema = readFileSync(sqliteSchemaPath, 'utf8');
    const committed = readFileSync(postgresSchemaPath, 'utf8');
    expect(committed).toBe(derivePostgresSchema(sqliteSchema));
    expect(committed).toMatch(/provider = "postgresql"/);
    expect(committed).toMatch(/output\s+= "\.\.\/\.\.\/lib\/db\/generated-pg"/);
  });

  test('derivation refuses a schema it does not understand rather than writing a wrong one', () => {
    expect(() => derivePostgresSchema('datasource db {\n  provider = "mysql"\n}\n')).toThrow(/sqlite datasource provider/);
  });
});
