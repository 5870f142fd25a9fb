import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { applySqliteMigrations } from './migrate';

const migrationsDir = path.resolve(__dirname, '../../prisma/migrations');
const dirs: string[] = [];
const tempDb = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-migrate-'));
  dirs.push(dir);
  return path.join(dir, 'test.db');
};

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('applySqliteMigrations', () => {
  test('creates every table once, records it like prisma, and is idempotent', () => {
    const databaseFile = tempDb();
    const first = applySqliteMigrations({ databaseFile, migrationsDir });
    expect(first.applied.length).toBe(first.total);
    expect(first.total).toBeGreaterThan(0);
    const second = applySqliteMigrations({ databaseFile, migrationsDir });
    expect(second.applied).toEqual([]);

    const db = new Database(databaseFile, { readonly: true });
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map(
      (row) => row.name,
    );
    expect(tables).toEqual(expect.arrayContaining(['AccessToken', 'Asset', 'PlaybackId', 'Job', '_prisma_migrations']));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const rows = db.prepare(`SELECT migration_name, checksum, finished_at FROM _prisma_migrations`).all() as {
      checksum: string;
      finished_at: number;
    }[];
    expect(rows).toHaveLength(first.total);
    for (const row of rows) {
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(row.finished_at).toBeTruthy();
    }
    db.close();
  });
});
