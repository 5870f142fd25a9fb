import { createInstanceSecretsCache } from '../auth/instance-secrets';
import { createVerifiedTokens } from '../auth/verify-access-token';
import { createDecoyPasswordHash } from '../auth/verify-user-password';
import { createPlaybackWorkerForgetterSlot } from '../coordination/playback-worker-caches';
import { createSharedRedis } from '../coordination/redis-client';
import { createDb } from '../db/client';
import { getEnv, parseEnv } from '../env';
import { createRateLimits } from '../http/rate-limit';
import { createRtmpServerSlot } from '../ingest/rtmp/rtmp-server';
import { createAssetWork } from '../jobs/signals';
import { createLogger } from '../log';
import { createMetricSet } from '../metrics/metric-set';
import { lazyParts } from '../runtime/lazy-parts';
import type { NodeRuntime } from '../runtime/node-runtime';
import { createServerState } from '../runtime/server-state';
import { createCollectorSlot } from '../services/analytics/collector';
import { createPlaybackTargets } from '../services/analytics/playback-targets';
import { createHealthCaches } from '../services/health/health-caches';
import { createImageGenerations } from '../services/images/image-files';
import { createIngestCpuSlots } from '../services/ingest/ingest-cpu-slots';
import { createPartialSources } from '../services/ingest/partial-sources';
import { createDownloadingSources } from '../services/inputs/source-input';
import { createBroadcastStopperSlot } from '../services/live/broadcast-control';
import { createLivePlaybackRegistry } from '../services/live/live-registry';
import { createRestrictionRules } from '../services/playback-restrictions/restriction-rules-cache';
import { createPlaybackState } from '../services/playback/create-playback-state';
import { createChildProcesses } from '../services/processes/child-processes';
import { createSigningPublicKeys } from '../services/signing-keys/signing-public-keys';
import { createSharedStorage } from '../services/storage/shared-storage';
import { createUploadLock } from '../services/uploads/upload-lock';
import { createSignalEmitters } from '../coordination/process-signal';

// What one Keyframe node holds in memory, part by part (see lib/runtime/node-runtime.ts). Each part
// is made on first use; its type is declared by the module that owns it. The compiler checks that
// every declared part is made here.
export const createNodeRuntime = (): NodeRuntime =>
  lazyParts<NodeRuntime>({
    env: () => parseEnv(process.env),
    log: () => createLogger(getEnv().logLevel),
    db: () => createDb(getEnv().database),
    serverState: createServerState,
    nodeEvents: () => ({ bus: null }),
    signals: createSignalEmitters,
    assetWork: createAssetWork,
    health: createHealthCaches,
    playback: createPlaybackState,
    imageGenerations: createImageGenerations,
    restrictionRules: createRestrictionRules,
    signingPublicKeys: createSigningPublicKeys,
    sharedStorage: createSharedStorage,
    metrics: createMetricSet,
    redis: createSharedRedis,
    rateLimits: createRateLimits,
    playbackWorkerForgetter: createPlaybackWorkerForgetterSlot,
    instanceSecrets: createInstanceSecretsCache,
    verifiedTokens: createVerifiedTokens,
    decoyPasswordHash: createDecoyPasswordHash,
    childProcesses: createChildProcesses,
    partialSources: createPartialSources,
    downloadingSources: createDownloadingSources,
    ingestCpuSlots: createIngestCpuSlots,
    livePlayback: createLivePlaybackRegistry,
    broadcastStopper: createBroadcastStopperSlot,
    rtmpServer: createRtmpServerSlot,
    collector: createCollectorSlot,
    playbackTargets: createPlaybackTargets,
    uploadLock: createUploadLock,
  });
