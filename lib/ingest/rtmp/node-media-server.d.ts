// Types for the node-media-server 2.7.4 internals Keyframe uses. The package ships none, and
// @types/node-media-server describes only the public NodeMediaServer facade, which we avoid: its
// run() installs process-wide uncaughtException/SIGINT handlers and starts servers we do not want.
// Only the members read or overridden in lib/ingest/rtmp are declared; check them when upgrading.

declare module 'node-media-server/src/node_rtmp_session.js' {
  import type { Socket } from 'node:net';

  namespace NodeRtmpSession {
    type Config = {
      rtmp: { port?: number; chunk_size?: number; gop_cache?: boolean; ping?: number; ping_timeout?: number };
    };
    type PacketHeader = { fmt: number; cid: number; timestamp: number; length: number; type: number; stream_id: number };
    type Packet = { header: PacketHeader; clock: number; payload: Buffer; capacity: number; bytes: number };
    /** An AMF0 command as NMS decodes it; `streamName` is set on publish and play. */
    type Command = { cmd: string; transId: number; streamName?: unknown; [field: string]: unknown };
    /** NMS keeps a second copy of the GOP for HTTP-FLV players; only add() and clear() are called on it. */
    type GopQueue = { add(chunks: Buffer): unknown; clear(): void };
  }

  class NodeRtmpSession {
    constructor(config: NodeRtmpSession.Config, socket: Socket);
    readonly id: string;
    readonly socket: Socket;
    /** True from run() until stop(): the session is alive. */
    isStarting: boolean;
    isPublishing: boolean;
    isPlaying: boolean;
    /** A player waiting for its stream to be published. */
    isIdling: boolean;
    /** The connect command's `app`, first '/' removed. */
    appname: string;
    publishStreamId: number;
    publishStreamPath: string;
    playStreamPath: string;
    /** The message being parsed; NMS reads the command's message stream id from it. */
    parserPacket: NodeRtmpSession.Packet;
    /** One partly assembled message per chunk stream id. */
    inPackets: Map<number, NodeRtmpSession.Packet>;
    /** Ids of the sessions playing this publish. */
    players: Set<string>;
    rtmpGopCacheQueue: Set<Buffer> | null;
    flvGopCacheQueue: NodeRtmpSession.GopQueue | null;
    /** From onMetaData's framerate (undefined when absent), else measured over the first 5 s. */
    videoFps: number | undefined;
    /** Media messages written to this reader since NMS last corked its socket (it uncorks at 10). */
    numPlayCache: number;

    run(): void;
    /** Unpublishes/unplays, clears the ping timer, forgets the session and destroys the socket. */
    stop(): void;
    onSocketData(data: Buffer): void;
    onSocketClose(): void;
    onSocketError(error: Error): void;
    onSocketTimeout(): void;
    onPublish(command: NodeRtmpSession.Command): void;
    onPlay(command: NodeRtmpSession.Command): void;
    onDeleteStream(command: { streamId: number }): void;
    rtmpAudioHandler(): void;
    rtmpVideoHandler(): void;
    rtmpPacketAlloc(): void;
    sendStatusMessage(streamId: number, level: 'status' | 'error', code: string, description: string): void;
  }

  export = NodeRtmpSession;
}

declare module 'node-media-server/src/node_core_ctx.js' {
  import type { EventEmitter } from 'node:events';

  const context: {
    /** Every live session (RTMP and HTTP-FLV) by id. */
    sessions: Map<string, unknown>;
    /** Publishing session id by stream path ('/app/key'). */
    publishers: Map<string, string>;
    idlePlayers: Set<string>;
    nodeEvent: EventEmitter;
    stat: { inbytes: number; outbytes: number; accepted: number };
  };
  export = context;
}

declare module 'node-media-server/src/node_core_logger.js' {
  const logger: {
    LOG_TYPES: { NONE: 0; ERROR: 1; NORMAL: 2; DEBUG: 3; FFDEBUG: 4 };
    setLogType(type: number): void;
  };
  export = logger;
}

declare module 'node-media-server/src/node_core_av.js' {
  namespace av {
    type AvcConfig = { width: number; height: number; profile: number; compat: number; level: number };
    type AacConfig = { object_type: number; sample_rate: number; channels?: number; sbr: number; ps: number };
  }
  const av: {
    AUDIO_CODEC_NAME: readonly string[];
    VIDEO_CODEC_NAME: readonly string[];
    /** Takes a whole FLV video tag body holding an AVC sequence header. */
    readAVCSpecificConfig(tagBody: Buffer): av.AvcConfig | undefined;
    getAVCProfileName(config: av.AvcConfig): string;
    /** Takes a whole FLV audio tag body holding an AAC sequence header. */
    readAACSpecificConfig(tagBody: Buffer): av.AacConfig;
    getAACProfileName(config: av.AacConfig): string;
  };
  export = av;
}

declare module 'node-media-server/src/node_rtmp_client.js' {
  /** NMS's RTMP client; the tests use it to see the onStatus messages the server sends, and as a reader. */
  class NodeRtmpClient {
    constructor(url: string);
    on(event: 'status', listener: (info: { level?: string; code?: string; description?: string }) => void): void;
    on(event: 'close', listener: () => void): void;
    /** A media message as played: its payload (an FLV tag body) and its timestamp in ms. */
    on(event: 'video' | 'audio', listener: (payload: Buffer, timestamp: number) => void): void;
    startPush(): void;
    startPull(): void;
    stop(): void;
  }
  export = NodeRtmpClient;
}
