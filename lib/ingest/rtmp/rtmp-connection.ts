import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import context from 'node-media-server/src/node_core_ctx.js';
import nmsLogger from 'node-media-server/src/node_core_logger.js';
import NodeRtmpSession from 'node-media-server/src/node_rtmp_session.js';
import { isVideoKeyframe } from './flv-tags';

// The one file that touches node-media-server 2.7.4 internals (PeerTube builds on the same ones).
// Its public NodeMediaServer has no hook that can wait: `prePublish` is emitted synchronously and the
// session sends NetStream.Publish.Start right after, so an encoder would see success for a key that a
// database lookup later refuses. Subclassing the RTMP session lets the publish wait for Keyframe's
// answer, refuse plays from other hosts, see each media message first (codecs, liveness), bound the
// memory NMS never bounds, and keep a malformed packet from throwing out of a socket handler (NMS
// relies on the process-wide uncaughtException handler its facade installs). Everything else about
// the protocol (handshake, chunking, GOP cache, fan-out to players) stays NMS's.

export type StatusNotice = { code: string; description: string };
export type MediaKind = 'audio' | 'video';

export type RtmpConnectionEvents = {
  /** NMS has told the client nothing yet; answer with acceptPublish() or refusePublish(). */
  publishRequested(connection: RtmpConnection, request: { app: string; streamName: string }): void;
  /** A refusal, or undefined to let NMS serve the play. */
  playRequested(connection: RtmpConnection, request: { app: string; streamName: string }): StatusNotice | undefined;
  /** Before NMS caches or forwards the message; false drops it. */
  mediaMessage(connection: RtmpConnection, kind: MediaKind, body: Buffer): boolean;
  /** The publish ended: the client unpublished, or the connection is closing. */
  unpublished(connection: RtmpConnection): void;
  closed(connection: RtmpConnection): void;
};

// PeerTube's values for chunk size; ping every 30 s. NMS's ping_timeout is a socket idle timeout that
// its own pings keep resetting, so a connected but silent client is caught by Keyframe's timers instead.
const SESSION_CONFIG: NodeRtmpSession.Config = { rtmp: { chunk_size: 60_000, gop_cache: true, ping: 30, ping_timeout: 60 } };

// Before a publish or play is accepted only small commands are legitimate; NMS would otherwise
// allocate whatever message length (up to 16 MiB) and however many chunk streams a client announces.
const MAX_UNAUTHENTICATED_MESSAGE_BYTES = 1024 * 1024;
const MAX_CHUNK_STREAMS = 32;
// A GOP longer than this (a very long keyframe interval) is dropped from the cache, so a late player
// starts mid-GOP instead of the server holding an unbounded GOP.
const MAX_GOP_CACHE_BYTES = 32 * 1024 * 1024;
// NMS writes to players without looking at backpressure; a player this far behind is cut off.
export const DEFAULT_MAX_READER_BACKLOG_BYTES = 64 * 1024 * 1024;
// How long a refused or closed client gets to read its error status before the socket is destroyed.
const NOTICE_GRACE_MS = 1_000;

// NMS's AMF0 encoder writes a string's length in UTF-16 units, not bytes, so any non-ASCII text
// in a status would corrupt the message; the encoder only needs to read it.
const toStatusText = (text: string): string => text.replaceAll('…', '...').replace(/[^\x20-\x7e]/g, '?').slice(0, 200);

const ignoredGopQueue: NodeRtmpSession.GopQueue = { add: () => undefined, clear: () => undefined };

/** NMS logs every stream path (which contains the key) to stdout unless told not to. */
export function silenceNodeMediaServer(): void {
  nmsLogger.setLogType(nmsLogger.LOG_TYPES.NONE);
}

/** NMS keeps sessions and publishers in module-global maps; a server that stopped must leave them empty. */
export function clearNodeMediaServerContext(): void {
  context.sessions.clear();
  context.publishers.clear();
  context.idlePlayers.clear();
  context.stat.inbytes = 0;
  context.stat.outbytes = 0;
  context.stat.accepted = 0;
}

// NMS's GOP cache holds the media since the last keyframe, for players joining late. Until the
// first player joins, this one holds everything since the publish began (within the cache's byte
// cap): that player is the packager, which starts a moment after the encoder, and what it would
// miss is the start of the recording.
class PrerollGopCache extends Set<Buffer> {
  private holding = true;

  get isHolding(): boolean {
    return this.holding;
  }

  override clear(): void {
    if (!this.holding) super.clear();
  }

  /** From now on, a keyframe empties the cache again; the overflow guard still can. */
  release(): void {
    this.holding = false;
  }

  /** The byte cap's emptying, which applies even while holding. */
  drop(): void {
    super.clear();
  }
}

export class RtmpConnection extends NodeRtmpSession {
  /** Why the connection ended or is ending; set once. */
  closeReason: string | undefined;
  private pendingPublish: { command: NodeRtmpSession.Command; streamId: number } | undefined;
  private gopCacheBytes = 0;
  private gopCacheOverflowLogged = false;
  private noticeTimer: NodeJS.Timeout | undefined;

  constructor(
    socket: Socket,
    private readonly events: RtmpConnectionEvents,
    public log: Logger,
    private readonly maxReaderBacklogBytes = DEFAULT_MAX_READER_BACKLOG_BYTES,
  ) {
    super(SESSION_CONFIG, socket);
    // Keyframe serves no HTTP-FLV, so NMS's second copy of every GOP would only cost memory.
    this.flvGopCacheQueue = ignoredGopQueue;
    if (this.rtmpGopCacheQueue) this.rtmpGopCacheQueue = new PrerollGopCache();
  }

  get hasPendingPublish(): boolean {
    return this.pendingPublish !== undefined;
  }

  /** From onMetaData, or NMS's own count after 5 s; undefined until known. */
  get frameRate(): number | undefined {
    return typeof this.videoFps === 'number' && this.videoFps > 0 ? this.videoFps : undefined;
  }

  override onSocketData(data: Buffer): void {
    try {
      super.onSocketData(data);
      this.flushReaders();
    } catch (error) {
      // Only the message: NMS errors can carry the parsed packet, and with it the stream name.
      this.log.warn({ error: error instanceof Error ? error.message : String(error) }, 'rtmp protocol error');
      this.destroy('protocol error');
    }
  }

  override onSocketClose(): void {
    this.closeReason ??= 'connection closed by the client';
    this.stop();
  }

  override onSocketError(error: Error): void {
    this.closeReason ??= `connection error (${(error as NodeJS.ErrnoException).code ?? error.message})`;
    this.stop();
  }

  override onSocketTimeout(): void {
    this.closeReason ??= 'connection timed out';
    this.stop();
  }

  override rtmpPacketAlloc(): void {
    const length = this.parserPacket.header.length;
    if (!this.isPublishing && length > MAX_UNAUTHENTICATED_MESSAGE_BYTES) {
      throw new Error(`a ${length}-byte message before any publish was accepted`);
    }
    if (this.inPackets.size > MAX_CHUNK_STREAMS) throw new Error(`more than ${MAX_CHUNK_STREAMS} chunk streams`);
    super.rtmpPacketAlloc();
  }

  override onPublish(command: NodeRtmpSession.Command): void {
    if (typeof command.streamName !== 'string' || this.closeReason !== undefined) return;
    const streamId = this.parserPacket.header.stream_id;
    if (this.isPublishing || this.pendingPublish) {
      this.sendStatusMessage(streamId, 'error', 'NetStream.Publish.BadConnection', 'Connection already publishing');
      return;
    }
    this.pendingPublish = { command, streamId };
    this.events.publishRequested(this, { app: this.appname, streamName: command.streamName });
  }

  /** Lets NMS complete the held publish (it sends NetStream.Publish.Start). False if the client is gone. */
  acceptPublish(): boolean {
    const pending = this.pendingPublish;
    this.pendingPublish = undefined;
    if (!pending || !this.isStarting || this.closeReason !== undefined) return false;
    // NMS takes the publish's message stream id from the packet being parsed, which after the
    // asynchronous key check is some later packet: give it the original id for this one call.
    const parsing = this.parserPacket;
    this.parserPacket = { ...parsing, header: { ...parsing.header, stream_id: pending.streamId } };
    try {
      super.onPublish(pending.command);
    } finally {
      this.parserPacket = parsing;
    }
    return this.isPublishing;
  }

  /** Answers the held publish with an error status (never Publish.Start) and closes the connection. */
  refusePublish(reason: string, notice: StatusNotice): void {
    const pending = this.pendingPublish;
    this.pendingPublish = undefined;
    if (!pending) return;
    this.closeGracefully(reason, pending.streamId, notice);
  }

  override onPlay(command: NodeRtmpSession.Command): void {
    if (typeof command.streamName !== 'string' || this.closeReason !== undefined) return;
    const refusal = this.events.playRequested(this, { app: this.appname, streamName: command.streamName });
    if (refusal) {
      this.closeGracefully(`play refused: ${refusal.description}`, this.parserPacket.header.stream_id, refusal);
      return;
    }
    super.onPlay(command);
    // The first reader (the packager) has had everything since the publish began.
    const publisherId = this.isPlaying ? context.publishers.get(this.playStreamPath) : undefined;
    const publisher = publisherId === undefined ? undefined : context.sessions.get(publisherId);
    if (publisher instanceof RtmpConnection && publisher.rtmpGopCacheQueue instanceof PrerollGopCache) publisher.rtmpGopCacheQueue.release();
  }

  override rtmpVideoHandler(): void {
    const body = this.mediaBody();
    if (body && this.events.mediaMessage(this, 'video', body)) {
      super.rtmpVideoHandler();
      // NMS empties its GOP cache on every keyframe (not while it holds the pre-roll).
      const holding = this.rtmpGopCacheQueue instanceof PrerollGopCache && this.rtmpGopCacheQueue.isHolding;
      if (isVideoKeyframe(body) && !holding) this.gopCacheBytes = 0;
      this.afterForwarding(body);
    }
  }

  override rtmpAudioHandler(): void {
    const body = this.mediaBody();
    if (body && this.events.mediaMessage(this, 'audio', body)) {
      super.rtmpAudioHandler();
      this.afterForwarding(body);
    }
  }

  override onDeleteStream(command: { streamId: number }): void {
    const endsPublish = this.isPublishing && command.streamId === this.publishStreamId;
    const players = endsPublish ? [...this.players] : [];
    super.onDeleteStream(command);
    if (!endsPublish) return;
    // NMS would keep the players idle and hand them the next publish of the same key, timestamps
    // restarting mid-stream; ending them makes each publish a whole stream for its reader.
    for (const playerId of players) {
      const player = context.sessions.get(playerId);
      if (player instanceof RtmpConnection) player.close('the publish it was playing ended');
    }
    this.events.unpublished(this);
  }

  override stop(): void {
    if (!this.isStarting) return;
    this.closeReason ??= 'connection closed';
    this.pendingPublish = undefined;
    clearTimeout(this.noticeTimer);
    super.stop();
    this.events.closed(this);
  }

  /**
   * Ends the connection. With a notice, the client first gets it as an error onStatus and the
   * socket is ended gracefully so that it can read it; the publish (if any) ends at once either way.
   */
  close(reason: string, notice?: StatusNotice): void {
    if (!this.isStarting || this.closeReason !== undefined) return;
    if (!notice) {
      this.destroy(reason);
      return;
    }
    this.closeGracefully(reason, this.isPublishing ? this.publishStreamId : this.pendingPublish?.streamId ?? 0, notice);
  }

  destroy(reason: string): void {
    this.closeReason ??= reason;
    this.stop();
  }

  private closeGracefully(reason: string, streamId: number, notice: StatusNotice): void {
    if (!this.isStarting || this.closeReason !== undefined) return;
    this.closeReason = reason;
    this.pendingPublish = undefined;
    this.sendStatusMessage(streamId, 'error', notice.code, toStatusText(notice.description));
    if (this.isPublishing) this.onDeleteStream({ streamId: this.publishStreamId });
    this.socket.end();
    this.noticeTimer = setTimeout(() => this.stop(), NOTICE_GRACE_MS);
    this.noticeTimer.unref();
  }

  private mediaBody(): Buffer | undefined {
    // Media sent before the publish was accepted, or while closing, is dropped.
    if (!this.isPublishing || this.closeReason !== undefined || this.parserPacket.header.length === 0) return undefined;
    return this.parserPacket.payload.subarray(0, this.parserPacket.header.length);
  }

  /**
   * Passes each read of the publisher on to its readers whole, at its end. NMS corks a reader's
   * socket at the first message of a batch and uncorks it on the next tick after the tenth; a read
   * holding more than ten messages corks it again before that tick, so the cork count stays above
   * zero and the reader gets nothing until some read happens to end on a batch boundary. With a
   * publisher that sends in bursts (the SRT relay: ~13 messages every 165 ms; any encoder behind a
   * jittery link) the packager then got its input in lumps up to 1.5 s apart (measured), and
   * low-latency parts with it.
   */
  private flushReaders(): void {
    for (const playerId of this.players) {
      const player = context.sessions.get(playerId);
      if (!(player instanceof RtmpConnection)) continue;
      player.numPlayCache = 0;
      while (player.socket.writableCorked > 0) player.socket.uncork();
    }
  }

  private afterForwarding(body: Buffer): void {
    if (this.rtmpGopCacheQueue) {
      this.gopCacheBytes += body.length;
      if (this.gopCacheBytes > MAX_GOP_CACHE_BYTES) {
        if (this.rtmpGopCacheQueue instanceof PrerollGopCache) this.rtmpGopCacheQueue.drop();
        else this.rtmpGopCacheQueue.clear();
        this.gopCacheBytes = 0;
        if (!this.gopCacheOverflowLogged) {
          this.gopCacheOverflowLogged = true;
          this.log.warn({ limitBytes: MAX_GOP_CACHE_BYTES }, 'GOP longer than the cache allows: late readers start mid-GOP (lower the keyframe interval)');
        }
      }
    }
    for (const playerId of this.players) {
      const player = context.sessions.get(playerId);
      if (player instanceof RtmpConnection && player.socket.writableLength > this.maxReaderBacklogBytes) {
        player.log.warn({ backlogBytes: player.socket.writableLength }, 'rtmp reader fell behind; disconnecting it');
        player.destroy('reader fell behind');
      }
    }
  }
}
