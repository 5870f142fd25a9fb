import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { startFaultProxy, type FaultProxy } from '../fault-proxy';
import { freePort } from '../free-port.mjs';
import { KeyframeProcess, type AccessToken, type EnvOverrides } from '../keyframe-process';
import { MediaServer } from '../media-server';
import { startPrivatePostgres, type PrivatePostgres } from '../private-postgres';
import { startPrivateRedis, type PrivateRedis } from '../private-redis';
import { runCommand } from '../processes';
import { readObjectOrUndefined, testS3Client, type S3Credentials } from '../s3-client';
import { ChaosBalancer } from './balancer';
import { mountSmallDisk, type SmallDisk } from './chaos-disk';
import type { ChaosTarget } from './target';

// The deployment the chaos runs break: two app nodes (KEYFRAME_ROLE=http, RTMP ingest on each)
// behind nginx configured as docs/scaling-out.md says, two workers, and dependencies of their own
// that a fault may restart — a private PostgreSQL and Redis (never the machine's shared ones), and
// the object store reached through a fault proxy. App node A's DATA_DIR is a small tmpfs, so a
// full disk is a real ENOSPC on one node.

export type ChaosS3 = S3Credentials & { bucket: string };

type NodeSlot = { role: 'http' | 'worker'; label: string; dataDir: string; port: number; rtmpPort: number | null };

const FFMPEG = process.env.FFMPEG_PATH ?? 'ffmpeg';
const INPUT_SECONDS = 12;
// pino's level number for `error`.
const PINO_ERROR = 50;
const NODE_START_TIMEOUT_MS = 120_000;
// Room for what a node keeps of ten minutes of load (sources and segments of ~60 assets, ~6 MB
// each, measured) well above the health check's floor, so the disk is full only when a fault fills it.
const APP_A_DISK_MB = 2_048;

/** A 12 s 960×540 clip with a tone (~1.5 Mb/s, 2 MB): cheap enough to ingest every few seconds on 2 cores. */
const generateInput = async (dir: string): Promise<string> => {
  const file = path.join(dir, 'chaos-input.mp4');
  const result = await runCommand(FFMPEG, [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
    '-f', 'lavfi', '-i', 'testsrc2=size=960x540:rate=30',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
    '-t', String(INPUT_SECONDS),
    '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '1400k', '-g', '60', '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-ac', '2', '-movflags', '+faststart',
    file,
  ], { timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`ffmpeg could not make the chaos input: ${result.stderr.trim()}`);
  return file;
};

export class ChaosCluster {
  readonly apps: KeyframeProcess[];
  readonly workers: KeyframeProcess[];
  /** Why the full-disk fault cannot run here, or null when app node A has a disk of its own. */
  readonly diskUnavailableReason: string | null;
  /** The logs of node processes a restart replaced. */
  private readonly replacedLogs: string[] = [];
  private readonly replacedNodes: KeyframeProcess[] = [];

  private constructor(
    readonly target: ChaosTarget,
    readonly postgres: PrivatePostgres,
    readonly redis: PrivateRedis,
    readonly storage: FaultProxy,
    readonly balancer: ChaosBalancer,
    readonly disk: SmallDisk | null,
    private readonly slots: Map<KeyframeProcess, NodeSlot>,
    private readonly env: EnvOverrides,
    private readonly cleanups: Array<() => Promise<void> | void>,
    diskUnavailableReason: string | null,
  ) {
    this.apps = [...slots].filter(([, slot]) => slot.role === 'http').map(([node]) => node);
    this.workers = [...slots].filter(([, slot]) => slot.role === 'worker').map(([node]) => node);
    this.diskUnavailableReason = diskUnavailableReason;
  }

  static async start({ s3, label = 'chaos', log = () => undefined }: { s3: ChaosS3; label?: string; log?: (line: string) => void }): Promise<ChaosCluster> {
    const cleanups: Array<() => Promise<void> | void> = [];
    const undo = async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
    };
    try {
      const workDir = mkdtempSync(path.join(os.tmpdir(), `keyframe-${label}-`));
      cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));
      log('chaos: making the input clip, starting PostgreSQL, Redis and the storage fault proxy…');
      const [inputFile, postgres, redis, storage] = await Promise.all([
        generateInput(workDir),
        startPrivatePostgres({ label: `${label}-postgres` }),
        startPrivateRedis({ label: `${label}-redis` }),
        startFaultProxy({ target: new URL(s3.endpoint) }),
      ]);
      cleanups.push(() => postgres.dispose(), () => redis.dispose(), () => storage.close());
      const media = await MediaServer.start({ roots: [workDir] });
      cleanups.push(() => media.close());
      const databaseUrl = await postgres.createDatabase('keyframe');

      const smallDisk = mountSmallDisk(`${label}-app-a`, APP_A_DISK_MB);
      if (smallDisk.available) cleanups.push(() => smallDisk.disk.dispose());
      const dataDir = (name: string) => {
        const dir = mkdtempSync(path.join(os.tmpdir(), `keyframe-${label}-${name}-`));
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        return dir;
      };
      const slotList: NodeSlot[] = [
        { role: 'http', label: `${label}-app-a`, dataDir: smallDisk.available ? smallDisk.disk.dir : dataDir('app-a'), port: await freePort(), rtmpPort: await freePort() },
        { role: 'http', label: `${label}-app-b`, dataDir: dataDir('app-b'), port: await freePort(), rtmpPort: await freePort() },
        { role: 'worker', label: `${label}-worker-1`, dataDir: dataDir('worker-1'), port: await freePort(), rtmpPort: null },
        { role: 'worker', label: `${label}-worker-2`, dataDir: dataDir('worker-2'), port: await freePort(), rtmpPort: null },
      ];
      const balancer = await ChaosBalancer.start({ upstreamPorts: slotList.filter((slot) => slot.role === 'http').map((slot) => slot.port), label: `${label}-nginx` });
      cleanups.push(() => balancer.dispose());
      const env: EnvOverrides = {
        BASE_URL: balancer.baseUrl,
        DATABASE_URL: databaseUrl,
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: 'keyframe-chaos',
        S3_BUCKET: s3.bucket,
        S3_ENDPOINT: storage.url,
        S3_REGION: s3.region,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
        PLAYBACK_WORKERS: '0',
        // The tmpfs node keeps its rendition cache well inside its disk.
        RENDITION_CACHE_MAX_BYTES: String(192 * 1024 ** 2),
        HEALTH_MIN_FREE_DISK_MB: '32',
      };
      log('chaos: starting two app nodes and two workers behind nginx…');
      const slots = new Map<KeyframeProcess, NodeSlot>();
      // One node applies the migrations alone; the others then start together and find them done.
      const [first, ...rest] = slotList;
      slots.set(await ChaosCluster.startNode(first!, env), first!);
      for (const [index, node] of (await Promise.all(rest.map((slot) => ChaosCluster.startNode(slot, env)))).entries()) slots.set(node, rest[index]!);
      // The target's functions and the cleanup reach the nodes running when they are called (a restart replaces one).
      const built: { cluster?: ChaosCluster } = {};
      cleanups.push(async () => {
        await Promise.all((built.cluster?.nodes ?? [...slots.keys()]).map((node) => node.dispose()));
      });
      const appA = [...slots.keys()][0]!;
      const token: AccessToken = await appA.createToken({ name: 'chaos' });

      const reader = testS3Client(s3);
      cleanups.push(() => reader.destroy());

      const target: ChaosTarget = {
        baseUrl: balancer.baseUrl,
        token,
        appUrls: () => built.cluster!.apps.map((app) => app.baseUrl),
        rtmpUrls: () => slotList.flatMap((slot) => (slot.rtmpPort ? [`rtmp://127.0.0.1:${slot.rtmpPort}/app`] : [])),
        inputUrl: media.fileUrl(path.basename(inputFile)),
        uploadFile: inputFile,
        readObject: (key) => readObjectOrUndefined(reader, s3.bucket, key),
        listKeys: async (prefix) => {
          const keys: string[] = [];
          let token: string | undefined;
          do {
            const page = await reader.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix, ContinuationToken: token }));
            keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
            token = page.NextContinuationToken;
          } while (token);
          return keys;
        },
        createWebhookEndpoint: async (url) => {
          const endpoint = await built.cluster!.apps[0]!.createWebhookEndpoint(url);
          return { id: endpoint.id, secret: endpoint.secret };
        },
      };
      built.cluster = new ChaosCluster(target, postgres, redis, storage, balancer, smallDisk.available ? smallDisk.disk : null, slots, env, cleanups, smallDisk.available ? null : smallDisk.reason);
      return built.cluster;
    } catch (error) {
      await undo();
      throw error;
    }
  }

  private static startNode(slot: NodeSlot, env: EnvOverrides): Promise<KeyframeProcess> {
    return KeyframeProcess.start({
      label: slot.label,
      dataDir: slot.dataDir,
      port: slot.port,
      startTimeoutMs: NODE_START_TIMEOUT_MS,
      env: { ...env, KEYFRAME_ROLE: slot.role, RTMP_PORT: slot.rtmpPort ? String(slot.rtmpPort) : '0' },
    });
  }

  get nodes(): KeyframeProcess[] {
    return [...this.apps, ...this.workers];
  }

  /** Starts a node that has exited again, on its DATA_DIR and ports (the balancer names the app nodes' ports). */
  async restartNode(node: KeyframeProcess): Promise<KeyframeProcess> {
    const slot = this.slots.get(node);
    if (!slot) throw new Error(`${node.label} is not a node of this cluster`);
    this.replacedLogs.push(`===== ${node.label} (before its restart)\n${node.logs()}`);
    this.replacedNodes.push(node);
    const next = await ChaosCluster.startNode(slot, this.env);
    this.slots.delete(node);
    this.slots.set(next, slot);
    const list = slot.role === 'http' ? this.apps : this.workers;
    list[list.indexOf(node)] = next;
    return next;
  }

  /** SIGSTOP / SIGCONT to the node's whole process group (the server and its ffmpeg children). */
  freeze(node: KeyframeProcess, frozen: boolean): void {
    try {
      process.kill(-node.pid, frozen ? 'SIGSTOP' : 'SIGCONT');
    } catch {
      // gone meanwhile
    }
  }

  /** Each node's /api/health status (0 when it does not answer within 3 s). */
  async health(): Promise<Array<{ label: string; status: number }>> {
    return Promise.all(
      this.nodes.map(async (node) => {
        try {
          const response = await fetch(node.url('/api/health'), { signal: AbortSignal.timeout(3_000) });
          await response.arrayBuffer();
          return { label: node.label, status: response.status };
        } catch {
          return { label: node.label, status: 0 };
        }
      }),
    );
  }

  /**
   * The requests every node (those a restart replaced too) logged as failed at level error, each
   * once: the message, the error's own and the URL. A 500 is logged so; the CI output shows the
   * test's messages only.
   */
  serverErrors(limit = 8): string[] {
    const seen = new Set<string>();
    for (const node of [...this.replacedNodes, ...this.nodes]) {
      for (const record of node.logRecords()) {
        // Requests' failures only: background loops log an outage they retry through as errors too.
        if (typeof record.level !== 'number' || record.level < PINO_ERROR || record.url === undefined) continue;
        const err = record.err as { message?: unknown; type?: unknown } | undefined;
        seen.add(`${node.label}: ${String(record.msg)}: ${String(err?.type ?? '')} ${String(err?.message ?? '')}${record.url ? ` (${String(record.url)})` : ''}`);
      }
    }
    return [...seen].slice(0, limit);
  }

  /** Every node's log (those a restart replaced too), nginx's error and access logs, the dependencies' output. */
  saveLogs(dir: string): void {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'nodes.log'), [...this.replacedLogs, ...this.nodes.map((node) => `===== ${node.label}\n${node.logs()}`)].join('\n'));
    writeFileSync(path.join(dir, 'nginx.log'), this.balancer.logs());
    writeFileSync(path.join(dir, 'dependencies.log'), `===== PostgreSQL\n${this.postgres.logs()}\n===== Redis\n${this.redis.logs()}\n`);
  }

  async dispose(): Promise<void> {
    for (const node of this.nodes) if (node.running) this.freeze(node, false);
    for (const cleanup of this.cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  }
}
