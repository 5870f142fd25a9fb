import type { BaselineResult } from './baseline';
import type { CaptionsResult } from './captions';
import type { ColdPlaybackResult } from './cold-playback';
import type { DeliveryOptions, DeliveryResult } from './delivery';
import type { IdleMemory } from './idle-memory';
import type { CollectorOptions, CollectorResult } from './collector';
import type { ChaosOptions, ChaosResult } from '../chaos/run-chaos';
import type { LiveOptions, LiveResult } from './live';
import type { CapacityOptions, CapacityResult } from './capacity';
import type { LoadOptions, LoadResult } from './load';
import type { BenchInput } from './inputs';
import type { LoadSnapshot, MachineInfo, PhaseCpu } from './machine';
import type { ScaledResult } from './scaled';
import type { SegmentsResult } from './segments';
import type { StaticRenditionsResult } from './static-renditions';
import type { AudioTracksCost, ReadyRatio, TimeToReadyResult } from './time-to-ready';
import type { UploadThroughputResult } from './upload-throughput';

// The results document of a run (bench/results.json); report.ts renders it (bench/results.md).

export type PhaseOutcome<T> = { status: 'ok'; value: T } | { status: 'error'; error: string } | { status: 'skipped'; reason: string };

export type Target = {
  id: string;
  description: string;
  value: number | null;
  limit: number;
  /** The value must be at least the limit (default: at most). */
  atLeast?: boolean;
  unit: 'ms' | 'ratio' | 'MB' | 'count';
  pass: boolean | null;
  note?: string;
};

export type BenchResults = {
  schema: 'keyframe-bench/2';
  mode: 'full' | 'quick' | 'upload-throughput' | 'time-to-ready' | 'segments' | 'cold-playback' | 'delivery' | 'load' | 'static-renditions' | 'captions' | 'live' | 'collector' | 'capacity' | 'chaos' | 'quality';
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  command: string;
  repo: { root: string; gitHead: string; uncommittedFiles: number; buildId: string | null; buildCreated: boolean; buildOlderThanSources: string[] };
  machine: MachineInfo;
  load: LoadSnapshot[];
  phaseCpu: PhaseCpu[];
  config: {
    server: Record<string, string>;
    timeToReadyRuns: number;
    segmentSamples: number;
    delivery: DeliveryOptions;
    uploadThroughput: { runsPerMethod: number };
    coldPlayback: { runs: number; seconds: number; inputs: string[] };
    underLoad: LoadOptions & { input: string };
    capacity: CapacityOptions & { input: string };
    dbPollMs: number;
    scaled: { requested: boolean; topologies: string[] };
    captions: { runsPerInput: number };
    live: LiveOptions;
    collector: CollectorOptions;
    chaos: ChaosOptions;
  };
  inputs: BenchInput[];
  /** The main server's resident memory a few seconds after start, before any work. */
  idleMemory: PhaseOutcome<IdleMemory>;
  timeToReady: PhaseOutcome<TimeToReadyResult>;
  segments: PhaseOutcome<SegmentsResult>;
  /** Cached segment and playlists from Keyframe, nginx and plain node under the same load. */
  delivery: PhaseOutcome<DeliveryResult>;
  baseline: PhaseOutcome<BaselineResult>;
  /** Direct uploads of a ~1.09 GB file on a server of its own: MB/s and the server's memory. */
  uploadThroughput: PhaseOutcome<UploadThroughputResult>;
  /** hls.js in Chromium plays the first minute of fresh assets (clean and camera-like) on a default server. */
  coldPlayback: PhaseOutcome<ColdPlaybackResult>;
  /** Request → ready of highest.mp4, cold and with the rung's segments cached. */
  staticRenditions: PhaseOutcome<StaticRenditionsResult>;
  /** Simulated viewers on fresh and on cached assets, and a burst of creates, on a server of its own. */
  underLoad: PhaseOutcome<LoadResult>;
  /** The fresh-asset capacity curve: N fresh assets × 5 viewers for N up to past the physical limit, measured in the same run. */
  capacity: PhaseOutcome<CapacityResult>;
  /** `--scaled`: time-to-ready and segments again on PostgreSQL + Redis + S3, next to the embedded default's. */
  scaled: PhaseOutcome<ScaledResult>;
  /** Caption generation (WAV extraction + speech recognition + cues): CPU and wall-clock seconds per audio second. */
  captions: PhaseOutcome<CaptionsResult>;
  /** Live streaming on a server of its own: latency and stalls per mode, connect → playable, CPU per stream against plain ffmpeg, concurrent streams. */
  live: PhaseOutcome<LiveResult>;
  /** mux-embed beacons at a fixed rate: answers, latency, views written, server memory. */
  collector: PhaseOutcome<CollectorResult>;
  /** The chaos soak: faults injected into a cluster under mixed load, recovery per kind, the invariants. */
  chaos: PhaseOutcome<ChaosResult>;
  summary: {
    timeToReadyMs: Record<string, { serverSide: number | null; clientObserved: number | null; dbPoll: number | null }>;
    timeToReadyRatios: ReadyRatio[];
    /** What extra audio streams add to time-to-ready (median of the file with them − median of the same file with one). */
    timeToReadyAudioTracks?: AudioTracksCost[];
    idleRssMB: number | null;
    firstListedVariant: string | null;
    firstListedColdSegment0Ms: number | null;
    firstListedColdSegment0DirectMs: number | null;
    firstListedInitPlusColdMs: number | null;
    firstListedStartupMs: number | null;
    delivery: Record<string, { keyframeRequestsPerSecond: number | null; nginxRequestsPerSecond: number | null; requestsPerSecondVsNginx: number | null; p99VsNginx: number | null }>;
    baselineMs: number | null;
    ratioTimeToReady300ToBaseline: number | null;
    uploadSinglePutMegabytesPerSecond: number | null;
    uploadChunkedMegabytesPerSecond: number | null;
    uploadServerPeakRssMB: number | null;
    coldPlaybackMaxStalls: Record<string, number | null>;
    underLoad: {
      freshStalls: number;
      freshVideoFetchP99Ms: number | null;
      freshAudioFetchP99Ms: number | null;
      cachedStalls: number;
      cachedVideoFetchP99Ms: number | null;
      cachedAudioFetchP99Ms: number | null;
      burstFirstCreateToLastReadyMs: number | null;
    } | null;
    /** Median CPU seconds per audio second, per captions input. */
    captionsCpuSecondsPerAudioSecond: Record<string, number | null>;
    live: {
      /** Per latency mode: median and p95 glass-to-glass seconds (and the median with exact program date times), stalls in the played minute, median connect → playable ms. */
      modes: Record<string, { medianLatencySeconds: number | null; publisherClockLatencySeconds: number | null; p95LatencySeconds: number | null; stalls: number | null; medianPlayableMs: number | null }>;
      /** Per input: CPU seconds per second of Keyframe (packager + server) and of the plain ffmpeg peer. */
      cpuPerStream: Record<string, { keyframe: number | null; packager: number | null; server: number | null; peer: number | null; keyframeVsPeer: number | null }>;
      /** Per input: the most concurrent streams that held real time. */
      concurrentStreamsHeld: Record<string, number | null>;
      /** Per reconnect-slate stream (with the control without a slate): stalls across the publisher gap and their total length. */
      slateStalls: Record<string, { stalls: number | null; stalledSeconds: number | null }>;
    } | null;
    collector: {
      validRefused: number;
      validP99Ms: number | null;
      viewsStored: number | null;
      viewsSent: number;
      rssMB: { before: number | null; peak: number | null; afterWrites: number | null; afterIdle: number | null };
    } | null;
  };
  targets: Target[];
  observations: string[];
  serverLogTail: string[];
};
