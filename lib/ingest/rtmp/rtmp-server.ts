import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { Logger } from 'pino';
import { listen } from '../../utils/listen';
import { withTimeout } from '../../utils/with-timeout';
import { audioCodecProblem, videoCodecProblem } from './flv-tags';
import { clearNodeMediaServerContext, RtmpConnection, silenceNodeMediaServer, type RtmpConnectionEvents, type StatusNotice } from './rtmp-connection';
import type { LiveIngestProtocol } from '../../schemas/live-stream';
import { LivePublisher, type RtmpPublisher } from './rtmp-publisher';
import { isLoopbackAddress, localReadHost, normalizeAddress, parseStreamTarget, redactStreamKey, relayTokenOf, RTMP_APP, withoutStreamKey } from './stream-path';

export type { RtmpMediaInfo, RtmpPublisher } from './rtmp-publisher';
export type { RtmpAudioInfo, RtmpVideoInfo } from './flv-tags';

/**
 * `connectedAt`: when the relayed encoder's media reached the relay, the origin of its dates (the
 * relay publishes here only once it has read the stream's parameters, then sends what it read);
 * asked when the relay publishes.
 */
export type Relay = { streamKey: string; protocol: LiveIngestProtocol; remoteAddress: string; connectedAt: () => number };

export type PublishDecision = { accept: true } | { accept: false; reason: string };

export type RtmpServer = {
  readonly port: number;
  publisherFor(streamKey: string): RtmpPublisher | undefined;
  /** Whether a publisher of this key is live (sent media lately), so another would be refused. */
  isPublishing(streamKey: string): boolean;
  /**
   * A one-time token for a loopback relay of another ingest (SRT) about to publish this key as
   * `{key}?relay={token}`: its publisher then reports the relayed protocol and the caller's address.
   */
  admitRelay(relay: Relay): string;
  /** Ends every session and the listener; resolves within about a second. */
  close(): Promise<void>;
};

export type RtmpServerOptions = {
  port: number;
  host?: string;
  /**
   * RTMPS: RTMP inside TLS on a port of its own (what OBS means by `rtmps://`). The decrypted
   * connection is the same RTMP session as a plain one; the packager still reads over plain RTMP
   * on the loopback port.
   */
  tls?: { port: number; cert: string; key: string };
  /** The stream key check. The encoder hears nothing until it answers. */
  authorize(streamKey: string, info: { remoteAddress: string }): Promise<PublishDecision>;
  onPublish(publisher: RtmpPublisher): void;
  log: Logger;
  /** A publisher connected but sending no media is closed after this long. Default 10 s. */
  mediaInactivityTimeoutMs?: number;
  /** Bytes queued for a reader (the packager) that fell behind before it is disconnected. Default 64 MiB. */
  maxReaderBacklogBytes?: number;
  /** The process's one slot (its runtime holds it): a second server is refused while one runs. */
  slot: RtmpServerSlot;
};

// node-media-server keeps its sessions in module-global maps, so two servers in one process would
// see each other's streams.
export type RtmpServerSlot = { running: boolean };

export const createRtmpServerSlot = (): RtmpServerSlot => ({ running: false });

const DEFAULT_MEDIA_INACTIVITY_TIMEOUT_MS = 10_000;
// A publish of a key that is already live is refused while the live one sent media this recently;
// past it, the old session is taken to be a dead connection not yet noticed, and is replaced.
const LIVE_PUBLISHER_SILENCE_MS = 5_000;
const AUTHORIZE_TIMEOUT_MS = 10_000;
// A relay publishes within a second or two of being admitted (its ffmpeg starts, then reads the
// first keyframe); a token not used by then is dropped.
const RELAY_TOKEN_TTL_MS = 30_000;
// NMS pings keep its own idle timeout from ever firing on a connected client.
const IDLE_CONNECTION_TIMEOUT_MS = 30_000;
const CLOSE_WAIT_MS = 1_500;
// A sweep this much later than due means the process itself did not run meanwhile.
const PAUSE_NOTICED_MS = 1_000;

const REFUSED_KEY = 'NetStream.Publish.Unauthorized';
const BAD_NAME = 'NetStream.Publish.BadName';

export async function startRtmpServer(options: RtmpServerOptions): Promise<RtmpServer> {
  const readHost = localReadHost(options.host);
  const serverSlot = options.slot;
  if (serverSlot.running) throw new Error('an RTMP server is already running in this process');
  serverSlot.running = true;
  silenceNodeMediaServer();
  clearNodeMediaServerContext();

  const log = options.log;
  const inactivityMs = options.mediaInactivityTimeoutMs ?? DEFAULT_MEDIA_INACTIVITY_TIMEOUT_MS;
  const connections = new Set<RtmpConnection>();
  const publishersByKey = new Map<string, LivePublisher>();
  const publishersByConnection = new Map<RtmpConnection, LivePublisher>();
  const relays = new Map<string, Relay & { expiresAt: number }>();
  let port = options.port;
  let closing: Promise<void> | undefined;

  const refuse = (connection: RtmpConnection, reason: string, code: string): void => {
    connection.log.info({ reason }, 'publish refused');
    connection.refusePublish(`publish refused: ${reason}`, { code, description: reason });
  };

  async function decidePublish(connection: RtmpConnection, app: string, streamName: string): Promise<void> {
    const target = parseStreamTarget(app, streamName);
    if (!target.ok) return refuse(connection, target.reason, BAD_NAME);
    const { streamKey } = target;
    const relay = takeRelay(connection, streamName, streamKey);
    const remoteAddress = relay?.remoteAddress ?? normalizeAddress(connection.socket.remoteAddress);
    connection.log = connection.log.child({ streamKey: redactStreamKey(streamKey) });

    let decision: PublishDecision;
    try {
      decision = await withTimeout(options.authorize(streamKey, { remoteAddress }), AUTHORIZE_TIMEOUT_MS, 'stream key check timed out');
    } catch (error) {
      connection.log.error({ error: withoutStreamKey(errorMessage(error), streamKey) }, 'stream key check failed');
      decision = { accept: false, reason: 'stream key check failed' };
    }
    if (closing || !connection.hasPendingPublish) return;
    if (!decision.accept) return refuse(connection, withoutStreamKey(decision.reason, streamKey), REFUSED_KEY);

    const current = publishersByKey.get(streamKey);
    if (current) {
      const silentMs = Date.now() - current.lastMediaAt();
      if (isLive(current)) return refuse(connection, 'stream key already publishing', BAD_NAME);
      current.connection.log.info({ silentMs, by: connection.id }, 'publish taken over by a new connection');
      current.close(`taken over by a new publish after ${silentMs} ms without media`);
    }
    if (!connection.acceptPublish()) {
      connection.log.info({ reason: connection.closeReason }, 'publisher left before its publish started');
      return;
    }
    const readUrl = `rtmp://${readHost}:${port}/${RTMP_APP}/${streamKey}`;
    const protocol = relay?.protocol ?? (socketIsTls(connection.socket) ? 'rtmps' : 'rtmp');
    const publisher = new LivePublisher(connection, streamKey, remoteAddress, readUrl, protocol, relay?.connectedAt());
    publishersByKey.set(streamKey, publisher);
    publishersByConnection.set(connection, publisher);
    connection.log.info('publish started');
    try {
      options.onPublish(publisher);
    } catch (error) {
      connection.log.error({ error: withoutStreamKey(errorMessage(error), streamKey) }, 'onPublish failed');
    }
  }

  const isLive = (publisher: LivePublisher): boolean => Date.now() - publisher.lastMediaAt() < LIVE_PUBLISHER_SILENCE_MS;

  // Only a loopback connection can be a relay, and only with the token issued for this key.
  const takeRelay = (connection: RtmpConnection, streamName: string, streamKey: string): Relay | null => {
    const token = relayTokenOf(streamName);
    if (token === null || !isLoopbackAddress(connection.socket.remoteAddress ?? '')) return null;
    const relay = relays.get(token);
    relays.delete(token);
    return relay && relay.streamKey === streamKey && relay.expiresAt > Date.now() ? relay : null;
  };

  const events: RtmpConnectionEvents = {
    publishRequested(connection, { app, streamName }) {
      decidePublish(connection, app, streamName).catch((error: unknown) => {
        connection.log.error({ error: errorMessage(error) }, 'publish decision failed');
        connection.destroy('publish decision failed');
      });
    },

    playRequested(connection, { app, streamName }): StatusNotice | undefined {
      if (!isLoopbackAddress(connection.socket.remoteAddress ?? '')) {
        connection.log.warn('remote rtmp play refused');
        return { code: 'NetStream.Play.Failed', description: 'playback is not offered over RTMP' };
      }
      const target = parseStreamTarget(app, streamName);
      if (!target.ok) return { code: 'NetStream.Play.StreamNotFound', description: target.reason };
      connection.log = connection.log.child({ streamKey: redactStreamKey(target.streamKey), role: 'reader' });
      connection.log.debug('rtmp reader attached');
      return undefined;
    },

    mediaMessage(connection, kind, body) {
      const publisher = publishersByConnection.get(connection);
      if (!publisher) return false;
      const problem = kind === 'video' ? videoCodecProblem(body) : audioCodecProblem(body);
      if (problem) {
        publisher.close(problem);
        return false;
      }
      try {
        publisher.recordMedia(kind, body);
      } catch (error) {
        publisher.close(`${kind} configuration unreadable: ${errorMessage(error)}`);
        return false;
      }
      return true;
    },

    unpublished(connection) {
      const publisher = publishersByConnection.get(connection);
      if (!publisher) return;
      publishersByConnection.delete(connection);
      if (publishersByKey.get(publisher.streamKey) === publisher) publishersByKey.delete(publisher.streamKey);
      const reason = connection.closeReason ?? 'publisher unpublished';
      publisher.end(reason);
      connection.log.info({ reason, durationMs: Date.now() - publisher.connectedAt }, 'publish ended');
      // An encoder that unpublished is about to hang up; nothing else happens on its connection.
      if (connection.closeReason === undefined) setImmediate(() => connection.close(reason));
    },

    closed(connection) {
      connections.delete(connection);
      connection.log.debug({ reason: connection.closeReason }, 'rtmp connection closed');
    },
  };

  const onSocket = (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    const connection = new RtmpConnection(socket, events, log, options.maxReaderBacklogBytes);
    connection.log = log.child({ rtmpSession: connection.id, remoteAddress: normalizeAddress(socket.remoteAddress), ...(socketIsTls(socket) && { tls: true }) });
    connections.add(connection);
    connection.run();
    setTimeout(() => {
      if (!connection.isPublishing && !connection.hasPendingPublish && !connection.isPlaying && !connection.isIdling) {
        connection.close(`neither published nor played within ${IDLE_CONNECTION_TIMEOUT_MS} ms`);
      }
    }, IDLE_CONNECTION_TIMEOUT_MS).unref();
  };
  const tcp = createServer(onSocket);
  // A client that is not speaking TLS (plain RTMP to the RTMPS port) or whose handshake fails is
  // dropped by node before it becomes a connection: logged, nothing else.
  const secure = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key, handshakeTimeout: AUTHORIZE_TIMEOUT_MS }, onSocket) : null;
  secure?.on('tlsClientError', (error, socket) => {
    log.info({ error: error.message, remoteAddress: normalizeAddress(socket.remoteAddress) }, 'rtmps handshake failed');
  });

  const sweepEveryMs = Math.max(100, Math.min(1_000, inactivityMs / 4));
  let lastSweepAt = Date.now();
  const sweep = setInterval(
    () => {
      const now = Date.now();
      const sinceLastSweep = now - lastSweepAt;
      lastSweepAt = now;
      // This process was paused (SIGSTOP, a frozen VM) or starved: a publisher's media may be
      // waiting unread in the socket, and timers run before I/O is read. Look again next round.
      if (sinceLastSweep > sweepEveryMs + PAUSE_NOTICED_MS) return;
      for (const publisher of publishersByKey.values()) {
        const silentMs = now - publisher.lastMediaAt();
        if (silentMs > inactivityMs) {
          publisher.close(`no media for ${silentMs} ms`);
        } else if (!publisher.isMediaKnown && now - publisher.connectedAt > inactivityMs) {
          publisher.close(`no H.264 or AAC configuration within ${inactivityMs} ms of publishing`);
        }
      }
    },
    sweepEveryMs,
  );
  sweep.unref();

  let tlsPort: number | null = null;
  try {
    port = await listenOn(tcp, options.port, options.host);
  } catch (error) {
    clearInterval(sweep);
    serverSlot.running = false;
    throw error;
  }
  // Plain RTMP goes on without RTMPS when its port is taken (another server on this machine).
  if (secure && options.tls) {
    tlsPort = await listenOn(secure, options.tls.port, options.host).catch((error: unknown) => {
      log.error({ error: errorMessage(error), port: options.tls?.port }, 'rtmps ingest is off: its port could not be opened (RTMPS_PORT in use?)');
      return null;
    });
  }
  tcp.on('error', (error) => log.error({ error: error.message }, 'rtmp listener error'));
  secure?.on('error', (error) => log.error({ error: error.message }, 'rtmps listener error'));
  log.info({ port, tlsPort }, 'rtmp ingest listening');

  const close = async (): Promise<void> => {
    clearInterval(sweep);
    const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
    const listenerClosed = Promise.all([closed(tcp), ...(secure && tlsPort !== null ? [closed(secure)] : [])]);
    for (const connection of [...connections]) connection.destroy('server closed');
    await Promise.race([listenerClosed, delay(CLOSE_WAIT_MS)]);
    clearNodeMediaServerContext();
    serverSlot.running = false;
    log.info({ port }, 'rtmp ingest closed');
  };

  return {
    get port() {
      return port;
    },
    publisherFor: (streamKey) => publishersByKey.get(streamKey),
    isPublishing: (streamKey) => {
      const publisher = publishersByKey.get(streamKey);
      return publisher !== undefined && isLive(publisher);
    },
    admitRelay: (relay) => {
      const now = Date.now();
      for (const [token, pending] of relays) if (pending.expiresAt <= now) relays.delete(token);
      const token = randomBytes(16).toString('hex');
      relays.set(token, { ...relay, expiresAt: now + RELAY_TOKEN_TTL_MS });
      return token;
    },
    close: () => (closing ??= close()),
  };
}

async function listenOn(server: Server, port: number, host: string | undefined): Promise<number> {
  await listen(server, { port, host });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

const socketIsTls = (socket: Socket): boolean => 'encrypted' in socket && socket.encrypted === true;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));
