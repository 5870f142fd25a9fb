import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onCleanup } from '../processes';

// A node's DATA_DIR on a small tmpfs of its own, so "the disk is full" is a real ENOSPC for that
// node alone: fill() takes every free byte with one preallocated file, free() gives it back.
// Mounting needs root (CAP_SYS_ADMIN); where it is refused the chaos run leaves the fault out and
// says why.

const FILL_MARGIN_BYTES = 8 * 1024 ** 2;

export type SmallDisk = { dir: string; fill(): void; free(): void; dispose(): void };

export type SmallDiskOutcome = { available: true; disk: SmallDisk } | { available: false; reason: string };

export const mountSmallDisk = (label: string, sizeMb: number): SmallDiskOutcome => {
  const dir = mkdtempSync(path.join(os.tmpdir(), `keyframe-chaos-${label}-`));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { available: false, reason: `mount -t tmpfs was refused (${(mounted.stderr || mounted.error?.message || '').trim() || `exit ${mounted.status}`})` };
  }
  const filler = path.join(dir, '.chaos-disk-filler');
  const unmount = () => {
    spawnSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  };
  // A run killed before its dispose still leaves no mount behind.
  const forgetCleanup = onCleanup(unmount);
  return {
    available: true,
    disk: {
      dir,
      fill: () => {
        // One preallocation of nearly all that is free, then small writes until ENOSPC: the node
        // writes meanwhile, so asking for exactly what statfs reported may already be too much.
        const { bavail, bsize } = statfsSync(dir);
        const bulk = bavail * bsize - FILL_MARGIN_BYTES;
        if (bulk > 0) spawnSync('fallocate', ['-l', String(bulk), filler]);
        const handle = openSync(filler, 'a');
        const block = Buffer.alloc(64 * 1024);
        try {
          for (;;) writeSync(handle, block);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        } finally {
          closeSync(handle);
        }
      },
      free: () => rmSync(filler, { force: true }),
      dispose: () => {
        forgetCleanup();
        unmount();
      },
    },
  };
};
