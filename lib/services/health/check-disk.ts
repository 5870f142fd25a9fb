import { statfs } from 'node:fs/promises';

export type DiskCheck = { ok: boolean; freeBytes?: number; reason?: string };

const MIB = 1024 ** 2;

/**
 * Whether DATA_DIR's disk has room to write what this node must write (segments, chunks, sources):
 * a node whose every write fails with ENOSPC must tell its load balancer, not answer 200.
 */
export const checkDisk = async (dataDir: string, minFreeBytes: number): Promise<DiskCheck> => {
  if (minFreeBytes <= 0) return { ok: true };
  try {
    const stats = await statfs(dataDir);
    // What an unprivileged writer may use (bavail), not what root could (bfree).
    const freeBytes = stats.bavail * stats.bsize;
    if (freeBytes >= minFreeBytes) return { ok: true, freeBytes };
    return {
      ok: false,
      freeBytes,
      reason: `DATA_DIR has ${Math.floor(freeBytes / MIB)} MiB free, below HEALTH_MIN_FREE_DISK_MB (${Math.round(minFreeBytes / MIB)})`,
    };
  } catch (error) {
    return { ok: false, reason: `DATA_DIR could not be examined: ${error instanceof Error ? error.message : String(error)}` };
  }
};
