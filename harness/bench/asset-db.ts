import Database from 'better-sqlite3';
import path from 'node:path';
import pg from 'pg';
import { onCleanup } from '../processes';
import { sleep } from '../stats';

// Reads asset rows straight from the server's database (read-only), because the API's asset GET is
// rate-limited and too coarse to time readiness to the millisecond. The embedded default keeps them
// in DATA_DIR's SQLite file; a server on PostgreSQL is read from that database, since its DATA_DIR
// holds no database at all.

export type AssetRow = {
  status: string;
  createdAt: number;
  readyAt: number | null;
  errorType: string | null;
  errorMessagesJson: string | null;
};

/** Where the benchmark reads an asset's readiness; one per server (or cluster) under test. */
export interface AssetDb {
  row(assetId: string): Promise<AssetRow | null>;
  /** Polls every `pollMs` until the asset is ready; returns the row and when (performance.now()) it was seen. */
  waitForReady(assetId: string, options?: { pollMs?: number; timeoutMs?: number }): Promise<{ row: AssetRow; seenAt: number }>;
  close(): Promise<void>;
}

type RawRow = {
  status: string;
  createdAt: string | number | null;
  readyAt: string | number | null;
  errorType: string | null;
  errorMessagesJson: string | null;
};

/** Prisma's SQLite DateTime: an ISO string, a "YYYY-MM-DD hh:mm:ss" UTC string or epoch milliseconds. */
export const parseDbTime = (value: string | number | null): number | null => {
  if (value === null) return null;
  if (typeof value === 'number') return value;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`;
  const parsed = Date.parse(iso);
  return Number.isNaN(parsed) ? null : parsed;
};

const toRow = (raw: RawRow | undefined, assetId: string): AssetRow | null => {
  if (!raw) return null;
  const createdAt = parseDbTime(raw.createdAt);
  if (createdAt === null) throw new Error(`unreadable createdAt ${JSON.stringify(raw.createdAt)} for asset ${assetId}`);
  return {
    status: raw.status,
    createdAt,
    readyAt: parseDbTime(raw.readyAt),
    errorType: raw.errorType,
    errorMessagesJson: raw.errorMessagesJson,
  };
};

const waitForReadyRow = async (
  read: () => Promise<AssetRow | null>,
  assetId: string,
  { pollMs = 20, timeoutMs = 15 * 60_000 }: { pollMs?: number; timeoutMs?: number } = {},
): Promise<{ row: AssetRow; seenAt: number }> => {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const row = await read();
    const seenAt = performance.now();
    if (row?.status === 'ready') return { row, seenAt };
    if (row?.status === 'errored') {
      throw new Error(`asset ${assetId} errored: ${row.errorType ?? ''} ${row.errorMessagesJson ?? ''}`);
    }
    if (seenAt > deadline) throw new Error(`asset ${assetId} was not ready within ${timeoutMs} ms (status ${row?.status})`);
    await sleep(pollMs);
  }
};

export class SqliteAssetDb implements AssetDb {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string], RawRow>;
  private readonly removeCleanup: () => void;

  constructor(dataDir: string) {
    this.db = new Database(path.join(dataDir, 'keyframe.db'), { readonly: true, fileMustExist: true });
    this.select = this.db.prepare<[string], RawRow>(
      'SELECT status, createdAt, readyAt, errorType, errorMessagesJson FROM Asset WHERE id = ?',
    );
    this.removeCleanup = onCleanup(() => this.db.close());
  }

  async row(assetId: string): Promise<AssetRow | null> {
    return toRow(this.select.get(assetId), assetId);
  }

  waitForReady(assetId: string, options?: { pollMs?: number; timeoutMs?: number }) {
    return waitForReadyRow(() => this.row(assetId), assetId, options);
  }

  async close(): Promise<void> {
    this.removeCleanup();
    this.db.close();
  }
}

// Prisma writes PostgreSQL DateTimes as UTC into `timestamp(3) without time zone`; epoch
// milliseconds computed in SQL avoid node-pg reading them in the process's local time zone.
const POSTGRES_SELECT =
  'SELECT status, (extract(epoch from "createdAt") * 1000)::float8 AS "createdAt", ' +
  '(extract(epoch from "readyAt") * 1000)::float8 AS "readyAt", "errorType", "errorMessagesJson" FROM "Asset" WHERE id = $1';

export class PostgresAssetDb implements AssetDb {
  private constructor(
    private readonly client: pg.Client,
    private readonly removeCleanup: () => void,
  ) {}

  /** `databaseUrl` is the server's DATABASE_URL (its `?schema=` selects the schema, as for the server). */
  static async connect(databaseUrl: string): Promise<PostgresAssetDb> {
    const url = new URL(databaseUrl);
    const schema = url.searchParams.get('schema') ?? 'public';
    url.searchParams.delete('schema');
    const client = new pg.Client({ connectionString: url.toString(), options: `-c search_path="${schema}"` });
    await client.connect();
    const removeCleanup = onCleanup(() => void client.end().catch(() => undefined));
    return new PostgresAssetDb(client, removeCleanup);
  }

  async row(assetId: string): Promise<AssetRow | null> {
    const result = await this.client.query<RawRow>(POSTGRES_SELECT, [assetId]);
    return toRow(result.rows[0], assetId);
  }

  waitForReady(assetId: string, options?: { pollMs?: number; timeoutMs?: number }) {
    return waitForReadyRow(() => this.row(assetId), assetId, options);
  }

  async close(): Promise<void> {
    this.removeCleanup();
    await this.client.end().catch(() => undefined);
  }
}

/** The asset database of a server started with `env`: PostgreSQL when its DATABASE_URL says so, else DATA_DIR's SQLite file. */
export const openAssetDb = async (server: { dataDir: string; env: Record<string, string | undefined> }): Promise<AssetDb> => {
  const url = server.env.DATABASE_URL;
  return url && /^postgres(ql)?:\/\//.test(url) ? PostgresAssetDb.connect(url) : new SqliteAssetDb(server.dataDir);
};
