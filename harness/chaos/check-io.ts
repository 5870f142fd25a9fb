import { createHash } from 'node:crypto';
import type { ChaosTarget } from './target';

// Small I/O helpers of the end-of-run checks. Their reads are not workload: nothing is recorded,
// and a failure is an answer (status 0, or no object) rather than an exception.

const CHECK_TIMEOUT_MS = 60_000;

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** `work` over `items`, at most `limit` at a time, results in order. */
export const mapLimit = async <T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
};

export const shuffled = <T>(items: readonly T[]): T[] => {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
};

export const getUnrecorded = async (url: string, authorization?: string): Promise<{ status: number; body: Buffer }> => {
  try {
    const response = await fetch(url, { headers: authorization ? { authorization } : {}, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
  } catch {
    return { status: 0, body: Buffer.alloc(0) };
  }
};

export const readObjectSafely = (target: ChaosTarget, key: string): Promise<Buffer | undefined> => target.readObject(key).catch(() => undefined);
