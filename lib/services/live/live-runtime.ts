import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import type { Env } from '../../env';
import { loadOrCreateRtmpsIdentity } from '../../ingest/rtmp/rtmps-certificate';
import { startRtmpServer, type PublishDecision, type RtmpPublisher, type RtmpServer, type RtmpServerSlot } from '../../ingest/rtmp/rtmp-server';
import { startSrtGateway, type SrtAdmission, type SrtGateway } from '../../ingest/srt/srt-gateway';
import { planLiveLadder, type LiveSourceInfo } from '../../media/live/live-ladder';
import { nodeRuntime } from '../../runtime/node-runtime';
import { parseEmbeddedLiveSubtitles, parseGeneratedLiveSubtitles } from '../../schemas/live-captions';
import type { LatencyMode } from '../../schemas/live-stream';
import { generateId } from '../../utils/ids';
import { Broadcast, type BroadcastResume } from './broadcast';
import { startBroadcastMirror } from './broadcast-mirror';
import { claimAbandonedBroadcast } from './broadcast-takeover';
import { registerBroadcastStopper, type BroadcastStopReason } from './broadcast-control';
import { markBroadcastEnded, markConnected, markDisconnected, markRecordingAndActive, markSlateUnavailable } from './broadcast-state';
import { finalizeRecording } from './finalize-recording';
import { broadcastDirectory, writeBroadcastManifest } from './live-files';
import { liveNodeIdOf } from './live-node-id';
import { registerLivePlayback, unregisterBroadcast, unregisterLivePlayback } from './live-registry';
import { recoverInterruptedBroadcasts } from './recover-broadcasts';
import { sharedStore } from '../storage/shared-storage';
import { startSimulcast, type Simulcast } from './simulcast-runtime';
import { prepareSlateImage } from './slate-image';
import { openSrtRelay } from './srt-relay';

// Live on this node: the RTMP server, one session per live stream with a broadcast, and the
// timers that end broadcasts (reconnect window, maximum continuous duration). Every state change
// goes to the database with its webhook (broadcast-state.ts); media goes to the broadcast.

type Session = {
  broadcast: Broadcast;
  liveStreamId: string;
  publisher: RtmpPublisher | null;
  connectionDone: Promise<void>;
  /** The connected publisher's restreams to the stream's simulcast targets. */
  simulcast: Promise<Simulcast | null>;
  reconnectWindowSeconds: number;
  reconnectTimer: NodeJS.Timeout | null;
  durationTimer: NodeJS.Timeout | null;
  ending: Promise<void> | null;
  /** The live stream's own playback IDs, answered from this broadcast. */
  streamPlaybackIds: string[];
  /** What the publisher sent first, which a slate takes its shape from. */
  source: LiveSourceInfo;
  /** The reconnect slate's image (fetched when the broadcast starts); null when it shows none. */
  slateImage: Promise<string> | null;
  /** Settles once the last disconnect is handled (recorded, window started), before a reconnect is. */
  disconnecting: Promise<void>;
  assetPlaybackIds: string[];
};

export type LiveRuntime = { rtmpPort: number; close(): Promise<void> };

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    /** Whether this process runs its one RTMP server (see rtmp-server.ts: there can be only one). */
    rtmpServer: RtmpServerSlot;
  }
}

const MEDIA_WAIT_MS = 10_000;
// How often a node checks that no other node has continued one of its recordings.
const HELD_CHECK_MS = 2_000;
const PACKAGER_RESTART_DELAY_MS = 500;

export const startLiveRuntime = async ({ env, log, defaultSlatePath }: { env: Env; log: Logger; defaultSlatePath: string }): Promise<LiveRuntime | null> => {
  const rtmpPort = env.live.rtmpPort;
  if (rtmpPort === null) return null;
  const startedAt = new Date();
  const db = getDb();
  const nodeId = liveNodeIdOf(env.dataDir);
  const sessions = new Map<string, Session>();
  const finalizing = new Set<Promise<void>>();
  const shutdown = new AbortController();

  const finalize = (assetId: string, onReady: () => void) => {
    const running = finalizeRecording({ assetId, signal: shutdown.signal, log: log.child({ assetId }) })
      .then(onReady)
      .catch((error: unknown) => {
        if (!shutdown.signal.aborted) log.error({ err: error, assetId }, 'could not finalize a live recording');
      })
      .finally(() => finalizing.delete(running));
    finalizing.add(running);
  };

  const endSession = (session: Session, reason: string): Promise<void> => {
    session.ending ??= (async () => {
      if (session.reconnectTimer) clearTimeout(session.reconnectTimer);
      if (session.durationTimer) clearTimeout(session.durationTimer);
      session.publisher?.close(reason);
      session.broadcast.disconnect();
      await session.connectionDone;
      // The last words come after the media: the recogniser answers when its feed ends.
      await session.broadcast.captionsHeard();
      session.broadcast.end();
      await session.broadcast.flushed();
      sessions.delete(session.liveStreamId);
      const { assetId } = session.broadcast;
      // A broadcast continued from a node that died has recorded media even if nothing came here.
      const recorded = session.broadcast.isPlayable || session.broadcast.isResumed;
      await markBroadcastEnded({ liveStreamId: session.liveStreamId, assetId: recorded ? assetId : null, nodeId });
      log.info({ liveStreamId: session.liveStreamId, reason }, 'broadcast ended');
      if (!recorded) {
        unregisterBroadcast(session.broadcast);
        await session.broadcast.removeFiles();
        return;
      }
      if (assetId) {
        finalize(assetId, () => {
          for (const playbackId of session.assetPlaybackIds) unregisterLivePlayback(playbackId, session.broadcast);
        });
      }
    })();
    return session.ending;
  };

  // A recording another node continued (this node was frozen or cut off from its publisher, which
  // reconnected there, see broadcast-takeover.ts): this node lets go of it, neither ending the
  // stream nor finalizing the recording, which that node does.
  const letGo = (session: Session): Promise<void> => {
    session.ending ??= (async () => {
      if (session.reconnectTimer) clearTimeout(session.reconnectTimer);
      if (session.durationTimer) clearTimeout(session.durationTimer);
      session.publisher?.close('the broadcast continues on another node');
      await (await session.simulcast)?.stop();
      session.broadcast.disconnect();
      await session.connectionDone;
      sessions.delete(session.liveStreamId);
      unregisterBroadcast(session.broadcast);
      log.warn({ liveStreamId: session.liveStreamId, assetId: session.broadcast.assetId }, 'another node continues this broadcast: let go of it here');
    })();
    return session.ending;
  };

  const letGoOfContinuedRecordings = async () => {
    const held = [...sessions.values()].filter((session) => !session.ending && session.broadcast.assetId);
    if (held.length === 0) return;
    const rows = await db.liveStream.findMany({ where: { id: { in: held.map((session) => session.liveStreamId) } }, select: { id: true, ingestNodeId: true, activeAssetId: true } });
    for (const session of held) {
      const row = rows.find((candidate) => candidate.id === session.liveStreamId);
      if (row?.ingestNodeId && row.ingestNodeId !== nodeId && row.activeAssetId === session.broadcast.assetId) void letGo(session);
    }
  };
  // Only with shared storage can another node continue a recording (continueBroadcast).
  const heldCheck = sharedStore()
    ? setInterval(() => {
        letGoOfContinuedRecordings().catch((error: unknown) => log.debug({ err: error }, 'could not check which broadcasts this node still holds'));
      }, HELD_CHECK_MS)
    : undefined;
  heldCheck?.unref();

  const refusalOf = (stream: { id: string; status: string } | null): string | null => {
    if (!stream) return 'unknown stream key';
    if (stream.status === 'disabled') return 'the live stream is disabled';
    const session = sessions.get(stream.id);
    if (session?.ending) return 'the previous broadcast is still ending';
    if (!session && sessions.size >= env.live.maxStreams) return `this node already takes ${env.live.maxStreams} broadcasts (LIVE_MAX_STREAMS)`;
    return null;
  };

  const streamOfKey = (streamKey: string) => db.liveStream.findUnique({ where: { streamKey }, select: { id: true, status: true, srtPassphrase: true } });

  const authorize = async (streamKey: string): Promise<PublishDecision> => {
    const reason = refusalOf(await streamOfKey(streamKey));
    return reason === null ? { accept: true } : { accept: false, reason };
  };

  // An SRT caller is checked before its listener starts; the check its relay then passes on the
  // RTMP side is the same one. A key already live is refused here (an RTMP publisher would be
  // refused by the RTMP server) so that the SRT caller hears it at connect.
  const admitSrt = async (streamKey: string): Promise<SrtAdmission> => {
    const stream = await streamOfKey(streamKey);
    const reason = refusalOf(stream);
    if (reason !== null || !stream) return { accept: false, reason: reason ?? 'unknown stream key' };
    if (server.isPublishing(streamKey)) return { accept: false, reason: 'stream key already publishing', conflict: true };
    return { accept: true, passphrase: stream.srtPassphrase };
  };

  // A packager that stops while its publisher is still connected (ffmpeg crashed, its reader fell
  // too far behind) is started again: a new connection of the broadcast, after a discontinuity,
  // rather than a publisher sending into nothing.
  const packageConnection = async (session: Session, publisher: RtmpPublisher, isLive: () => boolean) => {
    let connectedAtMs = publisher.connectedAt;
    const media = await Promise.race([publisher.media, new Promise<null>((resolve) => setTimeout(() => resolve(null), MEDIA_WAIT_MS))]).catch(() => null);
    const hasAudio = Boolean((media ?? session.source).audio);
    for (;;) {
      await session.broadcast.connect({ readUrl: publisher.readUrl, connectedAtMs, ffmpegPath: env.ffmpegPath, preset: env.live.x264Preset, hasAudio });
      const stopped = () => !isLive() || session.ending !== null || session.publisher !== publisher || shutdown.signal.aborted;
      if (stopped()) return;
      log.warn({ liveStreamId: session.liveStreamId }, 'the live packager stopped while the publisher is still connected; starting it again');
      await new Promise((resolve) => setTimeout(resolve, PACKAGER_RESTART_DELAY_MS));
      if (stopped()) return;
      connectedAtMs = Date.now();
    }
  };

  const startRestreams = (liveStreamId: string, publisher: RtmpPublisher): Promise<Simulcast | null> =>
    startSimulcast({ liveStreamId, readUrl: publisher.readUrl, ffmpegPath: env.ffmpegPath, log: log.child({ liveStreamId }) }).catch((error: unknown) => {
      log.error({ err: error, liveStreamId }, 'could not start the simulcast targets');
      return null;
    });

  // While the publisher is away inside the reconnect window the slate fills the timeline, so
  // players go on instead of stalling; a reconnect (or the broadcast's end) stops it.
  const showSlate = (session: Session) => {
    const { slateImage } = session;
    if (!slateImage) return;
    const away = () => session.publisher === null && session.ending === null && !shutdown.signal.aborted;
    session.connectionDone = (async () => {
      const imagePath = await slateImage;
      if (!away()) return;
      log.info({ liveStreamId: session.liveStreamId }, 'showing the reconnect slate');
      await session.broadcast.showSlate({ imagePath, source: session.source, ffmpegPath: env.ffmpegPath, preset: env.live.x264Preset });
    })().catch((error: unknown) => log.error({ err: error, liveStreamId: session.liveStreamId }, 'could not show the reconnect slate'));
  };

  const watchConnection = (session: Session, publisher: RtmpPublisher) => {
    session.publisher = publisher;
    let live = true;
    session.connectionDone = packageConnection(session, publisher, () => live);
    const simulcast = startRestreams(session.liveStreamId, publisher);
    session.simulcast = simulcast;
    session.disconnecting = publisher.ended.then(async ({ reason }) => {
      live = false;
      await (await simulcast)?.stop();
      if (session.publisher !== publisher) return;
      session.publisher = null;
      session.broadcast.disconnect();
      await session.connectionDone;
      if (session.ending) return;
      log.info({ liveStreamId: session.liveStreamId, reason }, 'publisher disconnected');
      const waits = session.reconnectWindowSeconds > 0 && (session.broadcast.isPlayable || session.broadcast.isResumed);
      if (waits) {
        session.reconnectTimer = setTimeout(() => void endSession(session, 'reconnect window elapsed'), session.reconnectWindowSeconds * 1000);
        // Before the webhook's transaction: players have only a few seconds of media buffered.
        showSlate(session);
      }
      await markDisconnected(session.liveStreamId);
      if (!waits) await endSession(session, 'publisher disconnected');
    });
    session.disconnecting.catch((error: unknown) => log.error({ err: error, liveStreamId: session.liveStreamId }, 'could not handle a disconnect'));
  };

  // As on Mux: reduced and low latency show a slate whenever they have a reconnect window,
  // standard only when asked to.
  const showsSlates = (stream: { reconnectWindow: number; latencyMode: string; useSlateForStandardLatency: boolean }) =>
    stream.reconnectWindow > 0 && (stream.latencyMode !== 'standard' || stream.useSlateForStandardLatency);

  const fetchSlate = (stream: { id: string; reconnectSlateUrl: string | null }, directory: string): Promise<string> =>
    prepareSlateImage({ url: stream.reconnectSlateUrl, directory, defaultImagePath: defaultSlatePath, signal: shutdown.signal })
      .then(async ({ imagePath, problem }) => {
        if (problem) {
          log.warn({ liveStreamId: stream.id, problem }, 'the reconnect slate image cannot be used; the default card stands in');
          await markSlateUnavailable(stream.id, problem);
        }
        return imagePath;
      })
      .catch((error: unknown) => {
        if (!shutdown.signal.aborted) log.error({ err: error, liveStreamId: stream.id }, 'could not fetch the reconnect slate');
        return defaultSlatePath;
      });

  type StreamWithPlaybackIds = NonNullable<Awaited<ReturnType<typeof findStreamOfKey>>>;
  const findStreamOfKey = (streamKey: string) => db.liveStream.findUnique({ where: { streamKey }, include: { playbackIds: true } });

  // A broadcast's session on this node, new or continued from a node that is gone (`resume`).
  const openSession = async ({
    stream,
    media,
    assetId,
    resume,
  }: {
    stream: StreamWithPlaybackIds;
    media: LiveSourceInfo;
    assetId: string | null;
    resume?: BroadcastResume;
  }): Promise<Session> => {
    const rungs = planLiveLadder(
      { ...(media.video && !stream.audioOnly && { video: media.video }), ...(media.audio && { audio: media.audio }) },
      { maxEncodedRungs: 2, audioOnly: stream.audioOnly },
    );
    const broadcastId = assetId ?? generateId();
    const directory = broadcastDirectory(env.dataDir, { assetId, broadcastId });
    const manifest = { liveStreamId: stream.id, latencyMode: stream.latencyMode, sourceRendition: rungs[0]!.name, renditions: rungs.map((rung) => rung.name) };
    await writeBroadcastManifest(directory, resume ? { ...manifest, connections: resume.connections } : manifest);
    const captions = parseGeneratedLiveSubtitles(stream.generatedSubtitlesJson)[0];
    const broadcastLog = log.child({ liveStreamId: stream.id });
    const broadcast = new Broadcast(
      stream.id,
      assetId,
      broadcastId,
      stream.latencyMode as LatencyMode,
      rungs,
      directory,
      broadcastLog,
      {
        generated: captions ? { binary: env.pocketsphinx.path, modelDir: env.pocketsphinx.modelDir, name: captions.name, languageCode: captions.language_code } : null,
        embedded: parseEmbeddedLiveSubtitles(stream.embeddedSubtitlesJson),
      },
      // Only a recording has anything another node would continue.
      { mirror: assetId ? startBroadcastMirror({ directory, manifest, log: broadcastLog }) : null, ...(resume && { resume }) },
    );
    // A continued broadcast keeps counting its continuous duration from its first connect.
    const elapsedMs = resume && stream.broadcastStartedAt ? Date.now() - stream.broadcastStartedAt.getTime() : 0;
    const session: Session = {
      broadcast,
      liveStreamId: stream.id,
      publisher: null,
      connectionDone: Promise.resolve(),
      simulcast: Promise.resolve(null),
      reconnectWindowSeconds: stream.reconnectWindow,
      reconnectTimer: null,
      durationTimer: setTimeout(() => void endSession(session, 'max_continuous_duration reached'), Math.max(0, stream.maxContinuousDuration * 1000 - elapsedMs)),
      ending: null,
      streamPlaybackIds: stream.playbackIds.map((playbackId) => playbackId.id),
      assetPlaybackIds: [],
      source: media,
      slateImage: showsSlates(stream) ? fetchSlate(stream, directory) : null,
      disconnecting: Promise.resolve(),
    };
    sessions.set(stream.id, session);
    for (const playbackId of stream.playbackIds) {
      registerLivePlayback(playbackId.id, { broadcast, policy: playbackId.policy as 'public' | 'signed', playlistType: 'sliding' });
    }
    return session;
  };

  const registerRecordingPlayback = (session: Session, playbackIds: Array<{ id: string; policy: string }>) => {
    session.assetPlaybackIds = playbackIds.map((playbackId) => playbackId.id);
    for (const playbackId of playbackIds) {
      registerLivePlayback(playbackId.id, { broadcast: session.broadcast, policy: playbackId.policy as 'public' | 'signed', playlistType: 'event' });
    }
  };

  const waitForMedia = (publisher: RtmpPublisher) =>
    Promise.race([publisher.media, new Promise<null>((resolve) => setTimeout(() => resolve(null), MEDIA_WAIT_MS))]).catch(() => null);

  const startBroadcast = async (publisher: RtmpPublisher, stream: StreamWithPlaybackIds, media: LiveSourceInfo): Promise<void> => {
    const assetId = stream.newAssetSettingsJson ? generateId() : null;
    const session = await openSession({ stream, media, assetId });
    await markConnected(stream.id, { id: nodeId, url: env.live.nodeUrl }, true, publisher.protocol);
    log.info({ liveStreamId: stream.id, renditions: session.broadcast.rungs.map((rung) => rung.name), latencyMode: stream.latencyMode }, 'broadcast started');
    watchConnection(session, publisher);
    session.broadcast.whenPlayable(() => {
      void markRecordingAndActive({ liveStreamId: stream.id, assetId })
        .then((playbackIds) => registerRecordingPlayback(session, playbackIds))
        .catch((error: unknown) => log.error({ err: error, liveStreamId: stream.id }, 'could not record the broadcast as active'));
    });
  };

  // The stream's node is gone and its publisher came here within the reconnect window: the same
  // recording goes on (see broadcast-takeover.ts). False when there is nothing to continue.
  const continueBroadcast = async (publisher: RtmpPublisher, stream: StreamWithPlaybackIds, media: LiveSourceInfo): Promise<boolean> => {
    if (!sharedStore()) return false;
    const takeover = await claimAbandonedBroadcast({ stream, node: { id: nodeId, url: env.live.nodeUrl }, dataDir: env.dataDir, log });
    if (!takeover) return false;
    const session = await openSession({ stream, media, assetId: takeover.assetId, resume: takeover.resume });
    // The node that died could not say its publisher went away.
    await markDisconnected(stream.id);
    await markConnected(stream.id, { id: nodeId, url: env.live.nodeUrl }, false, publisher.protocol);
    watchConnection(session, publisher);
    const recording = await db.asset.findUnique({ where: { id: takeover.assetId }, select: { playbackIds: { select: { id: true, policy: true } } } });
    session.broadcast.whenPlayable(() => registerRecordingPlayback(session, recording?.playbackIds ?? []));
    return true;
  };

  const onPublish = (publisher: RtmpPublisher): void => {
    void (async () => {
      const stream = await db.liveStream.findUnique({ where: { streamKey: publisher.streamKey }, select: { id: true } });
      const session = stream ? sessions.get(stream.id) : undefined;
      if (session && !session.ending && !session.publisher) {
        // Claimed at once: a slate about to start, or a disconnect still being handled, sees it.
        session.publisher = publisher;
        await session.disconnecting;
        if (session.reconnectTimer) clearTimeout(session.reconnectTimer);
        session.reconnectTimer = null;
        session.broadcast.disconnect();
        await session.connectionDone;
        if (session.ending) return publisher.close('the broadcast ended');
        await markConnected(session.liveStreamId, { id: nodeId, url: env.live.nodeUrl }, false, publisher.protocol);
        log.info({ liveStreamId: session.liveStreamId }, 'publisher reconnected');
        watchConnection(session, publisher);
        return;
      }
      const found = await findStreamOfKey(publisher.streamKey);
      if (!found) return publisher.close('the live stream was deleted');
      const media = await waitForMedia(publisher);
      if (!media) return publisher.close('no media arrived');
      if (!media.video && !found.audioOnly) return publisher.close('no video: publish H.264 video (or make the live stream audio_only)');
      if (!session && (await continueBroadcast(publisher, found, media))) return;
      await startBroadcast(publisher, found, media);
    })().catch((error: unknown) => {
      log.error({ err: error }, 'could not start a broadcast');
      publisher.close('internal error');
    });
  };

  const stop = async (liveStreamId: string, reason: BroadcastStopReason): Promise<void> => {
    const session = sessions.get(liveStreamId);
    if (!session) return;
    if (reason === 'reset-key') {
      session.publisher?.close('the stream key was reset');
      return;
    }
    await endSession(session, reason === 'complete' ? 'completed through the API' : reason === 'disable' ? 'disabled through the API' : 'deleted through the API');
  };

  const server: RtmpServer = await startRtmpServer({
    port: rtmpPort,
    host: env.host,
    tls: (await rtmpsListener(env, log)) ?? undefined,
    authorize,
    onPublish,
    log: log.child({ component: 'rtmp' }),
    slot: nodeRuntime().rtmpServer,
  });
  const srtGateway = await startSrtIngest({ env, log, admit: admitSrt, rtmpServer: server });
  registerBroadcastStopper(stop);
  recoverInterruptedBroadcasts({ nodeId, startedAt, finalize: (assetId) => finalize(assetId, () => undefined), log }).catch((error: unknown) =>
    log.error({ err: error }, 'could not recover interrupted broadcasts'),
  );

  return {
    rtmpPort: server.port,
    // A shutdown keeps broadcasts as they are in the database: their packagers stop (the last
    // complete segments are on disk) and the next start finalizes them, as after a crash.
    close: async () => {
      shutdown.abort();
      clearInterval(heldCheck);
      registerBroadcastStopper(null);
      for (const session of sessions.values()) {
        if (session.reconnectTimer) clearTimeout(session.reconnectTimer);
        if (session.durationTimer) clearTimeout(session.durationTimer);
        session.broadcast.disconnect();
      }
      await Promise.all([...sessions.values()].map(async (session) => (await session.simulcast)?.stop()));
      await srtGateway?.close();
      await server.close();
      await Promise.all([...sessions.values()].map((session) => session.connectionDone.then(() => session.broadcast.flushed())));
      await Promise.all(finalizing);
    },
  };
};

// RTMPS's port and certificate; null when it is off or its certificate cannot be had (plain RTMP
// still runs).
const rtmpsListener = async (env: Env, log: Logger): Promise<{ port: number; cert: string; key: string } | null> => {
  const { port, url, certFile, keyFile } = env.live.rtmps;
  if (port === null) return null;
  try {
    const identity = await loadOrCreateRtmpsIdentity({ dataDir: env.dataDir, certFile, keyFile, hostname: new URL(url.replace(/^rtmps:/, 'https:')).hostname });
    if (identity.generated) log.info({ port }, 'rtmps ingest uses a self-signed certificate (RTMPS_CERT_FILE / RTMPS_KEY_FILE set a real one)');
    return { port, cert: identity.cert, key: identity.key };
  } catch (error) {
    log.error({ err: error }, 'rtmps ingest is off: its certificate could not be read or made');
    return null;
  }
};

// SRT ingest beside RTMP; null when it is off or its port cannot be had (RTMP still runs).
const startSrtIngest = async ({
  env,
  log,
  admit,
  rtmpServer,
}: {
  env: Env;
  log: Logger;
  admit: (streamKey: string) => Promise<SrtAdmission>;
  rtmpServer: RtmpServer;
}): Promise<SrtGateway | null> => {
  const { port } = env.live.srt;
  if (port === null) return null;
  const srtLog = log.child({ component: 'srt' });
  return startSrtGateway({
    port,
    host: env.host,
    admit,
    openRelay: (request) => openSrtRelay({ ...request, ffmpegPath: env.ffmpegPath, rtmpServer, log: srtLog }),
    log: srtLog,
  }).catch((error: unknown) => {
    log.error({ error: error instanceof Error ? error.message : String(error), port }, 'srt ingest is off: its port could not be opened (SRT_PORT in use?)');
    return null;
  });
};
