import { createDefaultDb } from '../db/client';
import { createLogger } from '../log';
import { lazyParts } from '../runtime/lazy-parts';
import type { NodeRuntime } from '../runtime/node-runtime';

// What one Keyframe node holds in memory, part by part (see lib/runtime/node-runtime.ts). Each part
// is made on first use; its type is declared by the module that owns it. The compiler checks that
// every declared part is made here.
export const createNodeRuntime = (): NodeRuntime =>
  lazyParts<NodeRuntime>({
    log: createLogger,
    db: createDefaultDb,
  });
