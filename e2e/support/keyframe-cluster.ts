import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort as getFreePort } from '../../harness/free-port.mjs';
import { KeyframeProcess, type AccessToken, type EnvOverrides, type ExitInfo, type StartOptions } from '../../harness/keyframe-process';
import { NginxRoundRobin } from './nginx';
import {
  clusterS3,
  CLUSTER_POSTGRES_ADMIN_URL,
  CLUSTER_REDIS_URL,
  createBucket,
  deleteBucket,
  deleteRedisKeys,
  deleteRedisKeysSync,
  readObject,
  uniqueClusterName,
  type ClusterS3,
} from './cluster-services';
import { createE2eDatabase, dropE2eDatabase, dropE2eDatabasesSync, type E2eDatabase } from './e2e-database';

// The scaled-out deployment standing in for "the server" in cluster mode (E2E_CLUSTER=1): two app
// nodes (KEYFRAME_ROLE=http) and one worker (KEYFRAME_ROLE=worker), each with a DATA_DIR of its
// own, on one PostgreSQL database, one Redis key prefix and one bucket, behind nginx as a plain
// round-robin load balancer. Every node's BASE_URL is the balancer's URL, so the URLs nodes mint
// point at it. It offers what the specs use of a single server (baseUrl, url(), the CLI,
// stop/kill9/restart of the whole, logs); what only one process has (its pid, its DATA_DIR) throws.

/** What survives a restart: the database, Redis prefix, bucket and every node's DATA_DIR. */
type ClusterState = {
  database: E2eDatabase;
  keyPrefix: string;
  bucket: string;
  s3: ClusterS3;
  dataDirs: { appA: string; appB: string; worker: string };
  /** Further nodes a test started (e.g. a second worker), removed with the rest. */
  extraDataDirs: string[];
};

// Last-resort cleanup if a worker exits without running afterAll hooks. Buckets go with the Swift
// the global teardown removes (its data lives in one temp folder).
const ownedStates = new Set<ClusterState>();
process.once('exit', () => {
  for (const state of ownedStates) {
    for (const dir of [...Object.values(state.dataDirs), ...state.extraDataDirs]) rmSync(dir, { recursive: true, force: true });
  }
  dropE2eDatabasesSync(CLUSTER_POSTGRES_ADMIN_URL, [...ownedStates].map((state) => state.database));
  deleteRedisKeysSync([...ownedStates].map((state) => state.keyPrefix));
});

/** A cluster's start options: a single server's, and settings of each app node's own (e.g. its RTMP port). */
export type ClusterStartOptions = Omit<StartOptions, 'dataDir' | 'port'> & { appEnv?: [EnvOverrides, EnvOverrides] };

const clusterTempDir = (label: string) => mkdtempSync(path.join(os.tmpdir(), `keyframe-e2e-${label}-`));

export class KeyframeCluster {
  readonly label: string;
  readonly proxy: NginxRoundRobin;
  readonly port: number;
  readonly baseUrl: string;
  readonly overrides: EnvOverrides;
  readonly startedAt = Date.now();
  /** The two app nodes, straight (not through the balancer). */
  readonly apps: KeyframeProcess[];
  /** The worker node, and any a test added with startWorker(). */
  readonly workers: KeyframeProcess[];
  private readonly state: ClusterState;
  private ownsState: boolean;
  private readonly previousLogs: string;

  private constructor(options: {
    label: string;
    proxy: NginxRoundRobin;
    apps: KeyframeProcess[];
    workers: KeyframeProcess[];
    state: ClusterState;
    overrides: EnvOverrides;
    previousLogs: string;
  }) {
    this.label = options.label;
    this.proxy = options.proxy;
    this.port = options.proxy.port;
    this.baseUrl = options.proxy.baseUrl;
    this.apps = options.apps;
    this.workers = options.workers;
    this.state = options.state;
    this.overrides = options.overrides;
    this.previousLogs = options.previousLogs;
    this.ownsState = true;
    ownedStates.add(this.state);
  }

  static async start(options: ClusterStartOptions = {}): Promise<KeyframeCluster> {
    const s3 = clusterS3();
    const name = uniqueClusterName();
    const database = await createE2eDatabase(CLUSTER_POSTGRES_ADMIN_URL);
    const state: ClusterState = {
      database,
      keyPrefix: name,
      bucket: name,
      s3,
      dataDirs: { appA: clusterTempDir('app-a'), appB: clusterTempDir('app-b'), worker: clusterTempDir('worker') },
      extraDataDirs: [],
    };
    ownedStates.add(state);
    try {
      await createBucket(s3, state.bucket);
    } catch (error) {
      await KeyframeCluster.removeState(state);
      throw error;
    }
    return KeyframeCluster.launch(state, options, '');
  }

  /** Starts the balancer and the three nodes on `state`; on failure everything is stopped and (for a fresh state) removed. */
  private static async launch(state: ClusterState, options: ClusterStartOptions, previousLogs: string): Promise<KeyframeCluster> {
    const label = options.label ?? `cluster-${state.keyPrefix.slice(-6)}`;
    const nodePorts = await Promise.all([getFreePort(), getFreePort()]);
    const proxy = await NginxRoundRobin.start({ upstreamPorts: nodePorts, label: `${label}-nginx` });
    const overrides = { ...options.env };
    const startNode = (role: 'http' | 'worker', nodeLabel: string, dataDir: string, port?: number, nodeOverrides: EnvOverrides = {}) =>
      KeyframeProcess.start({
        label: `${label}-${nodeLabel}`,
        dataDir,
        port,
        ready: options.ready,
        startTimeoutMs: options.startTimeoutMs,
        // The default e2e run goes through the playback workers (PLAYBACK_WORKERS defaults to 2);
        // the app nodes here hold their ports themselves, so the single-process path is covered too.
        env: { ...KeyframeCluster.nodeEnv(state, proxy.baseUrl), KEYFRAME_ROLE: role, PLAYBACK_WORKERS: '0', ...overrides, ...nodeOverrides },
      });
    // Nodes start together: every role applies migrations under PostgreSQL's advisory lock.
    const starts = [
      startNode('http', 'app-a', state.dataDirs.appA, nodePorts[0], options.appEnv?.[0]),
      startNode('http', 'app-b', state.dataDirs.appB, nodePorts[1], options.appEnv?.[1]),
      startNode('worker', 'worker', state.dataDirs.worker),
    ];
    const settled = await Promise.allSettled(starts);
    const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) {
      await Promise.all(started.map((node) => node.stop().catch(() => undefined)));
      await proxy.dispose();
      if (!previousLogs) await KeyframeCluster.removeState(state);
      throw failure.reason;
    }
    const [appA, appB, worker] = started as [KeyframeProcess, KeyframeProcess, KeyframeProcess];
    return new KeyframeCluster({ label, proxy, apps: [appA, appB], workers: [worker], state, overrides, previousLogs });
  }

  private static nodeEnv(state: ClusterState, baseUrl: string): EnvOverrides {
    return {
      BASE_URL: baseUrl,
      DATABASE_URL: state.database.url,
      REDIS_URL: CLUSTER_REDIS_URL,
      REDIS_KEY_PREFIX: state.keyPrefix,
      S3_BUCKET: state.bucket,
      S3_ENDPOINT: state.s3.endpoint,
      S3_REGION: state.s3.region,
      S3_ACCESS_KEY_ID: state.s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: state.s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    };
  }

  private static async removeState(state: ClusterState): Promise<void> {
    for (const dir of [...Object.values(state.dataDirs), ...state.extraDataDirs]) rmSync(dir, { recursive: true, force: true });
    await Promise.allSettled([
      dropE2eDatabase(CLUSTER_POSTGRES_ADMIN_URL, state.database),
      deleteRedisKeys(state.keyPrefix),
      deleteBucket(state.s3, state.bucket),
    ]);
    ownedStates.delete(state);
  }

  get nodes(): KeyframeProcess[] {
    return [...this.apps, ...this.workers];
  }

  /** The environment of app node A: what the CLI runs with (the cluster's database, Redis and bucket). */
  get env(): NodeJS.ProcessEnv {
    return this.apps[0]!.env;
  }

  get pid(): number {
    throw new Error(`${this.label} is a cluster of ${this.nodes.length} processes: use cluster.apps / cluster.workers for a node's pid`);
  }

  get dataDir(): string {
    throw new Error(`${this.label} is a cluster: every node has a DATA_DIR of its own (cluster.apps[n].dataDir)`);
  }

  assetDir(assetId: string): string {
    throw new Error(`${this.label} is a cluster: no single DATA_DIR holds asset ${assetId}`);
  }

  /** Every node still runs. */
  get running(): boolean {
    return this.nodes.every((node) => node.running);
  }

  /** Resolves when every node has exited, with the exit that tells most (a failure before a clean one). */
  async exited(): Promise<ExitInfo> {
    return KeyframeCluster.summarise(await Promise.all(this.nodes.map((node) => node.exited())));
  }

  url(pathname: string): string {
    return `${this.baseUrl}${pathname}`;
  }

  logs(): string {
    return [
      this.previousLogs,
      ...this.nodes.map((node) => `===== ${node.label} (${node.env.KEYFRAME_ROLE}, port ${node.port})\n${node.logs()}`),
      `===== ${this.proxy.label}\n${this.proxy.logs()}`,
    ].filter(Boolean).join('\n');
  }

  /** A further worker node on the cluster's database, Redis and bucket, with a DATA_DIR of its own. */
  async startWorker(label = `worker-${this.workers.length + 1}`): Promise<KeyframeProcess> {
    const dataDir = clusterTempDir(label);
    this.state.extraDataDirs.push(dataDir);
    const worker = await KeyframeProcess.start({
      label: `${this.label}-${label}`,
      dataDir,
      env: { ...KeyframeCluster.nodeEnv(this.state, this.baseUrl), KEYFRAME_ROLE: 'worker', ...this.overrides },
    });
    this.workers.push(worker);
    return worker;
  }

  /** Restarts one node that has exited, on its DATA_DIR and (for an app node, which the balancer names) its port. */
  async restartNode(node: KeyframeProcess): Promise<KeyframeProcess> {
    const apps = this.apps.indexOf(node);
    const workers = this.workers.indexOf(node);
    if (apps < 0 && workers < 0) throw new Error(`${node.label} is not a node of ${this.label}`);
    const next = await node.restart({ label: node.label, port: apps >= 0 ? node.port : undefined });
    if (apps >= 0) this.apps[apps] = next;
    else this.workers[workers] = next;
    return next;
  }

  /** Graceful stop of every node (SIGTERM, in parallel), then the balancer. */
  async stop({ timeoutMs = 20_000 }: { timeoutMs?: number } = {}): Promise<ExitInfo> {
    const exits = await Promise.allSettled(this.nodes.map((node) => node.stop({ timeoutMs })));
    await this.proxy.stop();
    const failed = exits.find((exit): exit is PromiseRejectedResult => exit.status === 'rejected');
    if (failed) throw failed.reason;
    return KeyframeCluster.summarise(exits.map((exit) => (exit as PromiseFulfilledResult<ExitInfo>).value));
  }

  /** Crash of the whole cluster: SIGKILL to every node's process group. */
  async kill9(): Promise<ExitInfo> {
    const exits = await Promise.all(this.nodes.map((node) => node.kill9()));
    await this.proxy.stop();
    return KeyframeCluster.summarise(exits);
  }

  signal(signal: NodeJS.Signals): void {
    for (const node of this.nodes) node.signal(signal);
  }

  killGroupSync(): void {
    for (const node of this.nodes) node.killGroupSync();
    this.proxy.killGroupSync();
  }

  /** A new cluster (new ports, new balancer) on the same database, Redis prefix, bucket and DATA_DIRs; every node must have exited. */
  async restart(options: Omit<StartOptions, 'dataDir' | 'port'> = {}): Promise<KeyframeCluster> {
    const stillRunning = this.nodes.filter((node) => node.running);
    if (stillRunning.length > 0) {
      throw new Error(`${stillRunning.map((node) => node.label).join(', ')} still running; stop() or kill9() the cluster before restarting`);
    }
    if (!this.ownsState) throw new Error(`${this.label} was already restarted`);
    await this.proxy.dispose();
    // Nodes a test added are not part of the restarted cluster; their DATA_DIRs stay until it is disposed.
    const next = await KeyframeCluster.launch(
      this.state,
      { ...options, env: { ...this.overrides, ...options.env }, label: options.label ?? `${this.label}-restarted` },
      this.logs().split('\n').map((line) => `[previous run] ${line}`).join('\n'),
    );
    this.ownsState = false;
    return next;
  }

  /** Stops everything still running; removes the database, Redis keys, bucket and DATA_DIRs if this cluster owns them. */
  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((node) => (node.running ? node.stop().catch(() => undefined) : undefined)));
    await this.proxy.dispose();
    if (this.ownsState) {
      this.ownsState = false;
      await KeyframeCluster.removeState(this.state);
    }
  }

  /** An object of the cluster's bucket, or undefined when there is none under `key`. */
  storedObject(key: string): Promise<Buffer | undefined> {
    return readObject(this.state.s3, this.state.bucket, key);
  }

  /**
   * The asset's stored source as the cluster keeps it: in the bucket, uploaded once the asset is
   * ready (readiness does not wait for it), so this waits up to `timeoutMs` for the object.
   */
  async storedSource(assetId: string, timeoutMs = 30_000): Promise<Buffer | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const bytes = await this.storedObject(`assets/${assetId}/source`);
      if (bytes || Date.now() > deadline) return bytes;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  // --- CLI (against the cluster's database) ---

  async cli(args: string[]): Promise<unknown> {
    return this.apps[0]!.cli(args);
  }

  async createToken(options: { readOnly?: boolean; name?: string } = {}): Promise<AccessToken> {
    return this.apps[0]!.createToken(options);
  }

  async revokeToken(id: string): Promise<{ id: string; revoked: boolean }> {
    return this.apps[0]!.revokeToken(id);
  }

  private static summarise(exits: ExitInfo[]): ExitInfo {
    return exits.find((exit) => exit.signal !== null || exit.code !== 0) ?? exits.at(-1)!;
  }
}
