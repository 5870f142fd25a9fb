import type { MediaToolCheck } from '../../media/tool-check';
import { nodeRuntime } from '../../runtime/node-runtime';
import type { StorageCheck } from '../storage/check-shared-storage';

// What the health check remembers between polls (see check-health.ts): the last ffmpeg/ffprobe
// check per tool path, and the last shared-storage check (a promise, so concurrent polls share it).
export type HealthCaches = {
  toolChecks: Map<string, { at: number; result: MediaToolCheck }>;
  storageCheck: { at: number; result: Promise<StorageCheck | null> | null; failed: boolean };
};

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    health: HealthCaches;
  }
}

export const createHealthCaches = (): HealthCaches => ({ toolChecks: new Map(), storageCheck: { at: 0, result: null, failed: false } });

export const healthCaches = (): HealthCaches => nodeRuntime().health;
