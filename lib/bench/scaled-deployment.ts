import { KeyframeServer, type AccessToken, type Deployment, type ServerNode } from './keyframe-server';

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
  stop(): Promise<void>;
};

export const startDeployment = async ({
  repoRoot,
  topology,
  env,
}: {
  repoRoot: string;
  topology: Topology;
  env: Record<string, string>;
}): Promise<RunningDeployment> => {
  if (topology === 'all') return KeyframeServer.start({ repoRoot, env: { ...env, KEYFRAME_ROLE: 'all' } });
  // The worker first: it applies the migrations the app node then finds done.
  const worker = await KeyframeServer.start({ repoRoot, env: { ...env, KEYFRAME_ROLE: 'worker' } });
  let app: KeyframeServer;
  try {
    app = await KeyframeServer.start({ repoRoot, env: { ...env, KEYFRAME_ROLE: 'http' } });
  } catch (error) {
    await worker.stop();
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
    stop: async () => {
      await app.stop();
      await worker.stop();
    },
  };
};
