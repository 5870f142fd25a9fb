import { PartialSourceServer } from '../../ingest/partial-source-server';
import { nodeRuntime } from '../../runtime/node-runtime';

// The node's loopback server for sources still downloading (lib/ingest/partial-source-server.ts):
// one per node, listening from the first download that serves through it.

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    partialSources: PartialSourceServer;
  }
}

export const createPartialSources = (): PartialSourceServer => new PartialSourceServer();

export const partialSources = (): PartialSourceServer => nodeRuntime().partialSources;
