import { isCluster } from './cluster-services';
import { KeyframeCluster } from './keyframe-cluster';
import { KeyframeProcess, type StartOptions } from './keyframe-process';

// "The server" the specs start: one Keyframe process, or with E2E_CLUSTER=1 a whole cluster (two
// app nodes and a worker on PostgreSQL + Redis + S3 behind a round-robin nginx: keyframe-cluster.ts)
// offering the same API, so the suites run unchanged against the scaled-out configuration.

export { getFreePort, type AccessToken, type EnvOverrides, type ExitInfo, type StartOptions } from './keyframe-process';
export { isCluster } from './cluster-services';
export { KeyframeCluster } from './keyframe-cluster';
export { KeyframeProcess } from './keyframe-process';

export type KeyframeServer = KeyframeProcess | KeyframeCluster;

export const KeyframeServer = {
  start: (options: StartOptions = {}): Promise<KeyframeServer> => {
    if (!isCluster()) return KeyframeProcess.start(options);
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
