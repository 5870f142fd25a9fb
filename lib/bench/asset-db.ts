import Database from 'better-sqlite3';
import path from 'node:path';
import { onCleanup } from './processes';
import { sleep } from './stats';

// Reads asset rows straight from the server's SQLite database (read-only), because the API's asset
// GET is rate-limited and too coarse to time readiness to the millisecond.

export type AssetRow = {
  status: string;
  createdAt: number;
  readyAt: number | null;
  errorType: string | null;
  errorMessagesJson: string | null;
};

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
  if (/^\d+$/.test(value)) return Number(value);
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`;
  const parsed = Date.parse(iso);
  return Number.isNaN(parsed) ? null : parsed;
};

export class AssetDb {
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

  row(assetId: string): AssetRow | null {
    const raw = this.select.get(assetId);
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
  }

  /** Polls every `pollMs` until the asset is ready; returns the row and when (performance.now()) it was seen. */
  async waitForReady(assetId: string, { pollMs = 20, timeoutMs = 15 * 60_000 } = {}): Promise<{ row: AssetRow; seenAt: number }> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const row = this.row(assetId);
      const seenAt = performance.now();
      if (row?.status === 'ready') return { row, seenAt };
      if (row?.status === 'errored') {
        throw new Error(`asset ${assetId} errored: ${row.errorType ?? ''} ${row.errorMessagesJson ?? ''}`);
      }
      if (seenAt > deadline) throw new Error(`asset ${assetId} was not ready within ${timeoutMs} ms (status ${row?.status})`);
      await sleep(pollMs);
    }
  }

  close(): void {
    this.removeCleanup();
    this.db.close();
  }
}
