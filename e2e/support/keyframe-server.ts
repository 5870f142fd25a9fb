import { KeyframeProcess, type StartOptions } from '../../harness/keyframe-process';
import { isCluster } from './cluster-services';
import { freshE2eDatabase } from './e2e-database';
import { KeyframeCluster } from './keyframe-cluster';

// "The server" the specs start: one Keyframe process (harness/keyframe-process.ts; with
// E2E_DATABASE_URL on a PostgreSQL database of its own: e2e-database.ts), or with E2E_CLUSTER=1 a
// whole cluster (two app nodes and a worker on PostgreSQL + Redis + S3 behind a round-robin nginx:
// keyframe-cluster.ts) offering the same API, so the suites run unchanged against the scaled-out
// configuration.

export { freePort as getFreePort } from '../../harness/free-port.mjs';
export { KeyframeProcess, type AccessToken, type EnvOverrides, type ExitInfo, type StartOptions } from '../../harness/keyframe-process';
export { isCluster } from './cluster-services';
export { KeyframeCluster } from './keyframe-cluster';

export type KeyframeServer = KeyframeProcess | KeyframeCluster;

export const KeyframeServer = {
  start: (options: StartOptions = {}): Promise<KeyframeServer> => {
    if (!isCluster()) return KeyframeProcess.start({ freshDatabase: freshE2eDatabase(), ...options });
    if (options.dataDir !== undefined || options.port !== undefined) {
      throw new Error('a cluster has a DATA_DIR and a port per node: start it without dataDir/port (specs that need them skip in cluster mode)');
    }
    return KeyframeCluster.start(options);
  },
};

/** Every DATA_DIR of the server: its own, or each node's. */
export const dataDirsOf = (server: KeyframeServer): string[] =>
  server instanceof KeyframeCluster ? server.nodes.map((node) => node.dataDir) : [server.dataDir];

/** Where each node of the server keeps the asset's files (DATA_DIR/assets/<id>). */
export const assetDirsOf = (server: KeyframeServer, assetId: string): string[] =>
  server instanceof KeyframeCluster ? server.nodes.map((node) => node.assetDir(assetId)) : [server.assetDir(assetId)];
