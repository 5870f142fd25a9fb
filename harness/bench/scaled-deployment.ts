import type { KeyframeProcess } from '../keyframe-process';
import { startBenchServer, type AccessToken, type Deployment, type ServerNode } from './bench-server';

// A Keyframe deployment under test for `--scaled`: one process with every role (KEYFRAME_ROLE=all),
// or an app node (http) in front of a worker node (worker) sharing the same database, Redis and
// bucket. API and playback requests go to the app node; ingests, post-ready encodes and webhook
// deliveries run where their role puts them.

export const TOPOLOGIES = ['all', 'http+worker'] as const;
export type Topology = (typeof TOPOLOGIES)[number];

export type RunningDeployment = Deployment & {
  env: NodeJS.ProcessEnv;
  createToken(): Promise<AccessToken>;
  createWebhookEndpoint(url: string): Promise<{ id: string; url: string }>;
  logs(): string;
  dispose(): Promise<void>;
};

export const startDeployment = async ({
  topology,
  env,
}: {
  topology: Topology;
  env: Record<string, string>;
}): Promise<RunningDeployment> => {
  if (topology === 'all') return startBenchServer({ env: { ...env, KEYFRAME_ROLE: 'all' } });
  // The worker first: it applies the migrations the app node then finds done.
  const worker = await startBenchServer({ env: { ...env, KEYFRAME_ROLE: 'worker' } });
  let app: KeyframeProcess;
  try {
    app = await startBenchServer({ env: { ...env, KEYFRAME_ROLE: 'http' } });
  } catch (error) {
    await worker.dispose();
    throw error;
  }
  const nodes: readonly ServerNode[] = [app, worker];
  return {
    baseUrl: app.baseUrl,
    dataDir: app.dataDir,
    env: app.env,
    nodes,
    findLogRecords: (match) => [...app.findLogRecords(match), ...worker.findLogRecords(match)],
    createToken: () => app.createToken(),
    createWebhookEndpoint: (url) => app.createWebhookEndpoint(url),
    logs: () => [app.logs().replace(/^/gm, '[http] '), worker.logs().replace(/^/gm, '[worker] ')].join('\n'),
    dispose: async () => {
      await app.dispose();
      await worker.dispose();
    },
  };
};
