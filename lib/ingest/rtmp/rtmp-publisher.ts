import type { LiveIngestProtocol } from '../../schemas/live-stream';
import type { RtmpConnection } from './rtmp-connection';
import {
  describeAacSequenceHeader,
  describeAvcSequenceHeader,
  isAacSequenceHeader,
  isAvcSequenceHeader,
  type RtmpAudioInfo,
  type RtmpVideoInfo,
} from './flv-tags';
import { withoutStreamKey } from './stream-path';

export type RtmpMediaInfo = { video?: RtmpVideoInfo; audio?: RtmpAudioInfo };

export type RtmpPublisher = {
  /** NMS session id. */
  readonly id: string;
  readonly streamKey: string;
  readonly remoteAddress: string;
  /** Date.now() when the publish was accepted. */
  readonly connectedAt: number;
  /** How the encoder connected: RTMP, RTMP inside TLS, or SRT through a loopback relay. */
  readonly protocol: LiveIngestProtocol;
  /** rtmp://127.0.0.1:{port}/app/{streamKey}, for the local packager. */
  readonly readUrl: string;
  /** Resolves once both codecs are known (or a moment after only one is); rejects if the publish ends first. */
  readonly media: Promise<RtmpMediaInfo>;
  /** Resolves (never rejects) when the publish ends, for any reason. */
  readonly ended: Promise<{ reason: string }>;
  /** Date.now() of the last audio or video message (when the publish began, before the first). */
  lastMediaAt(): number;
  /** Ends the publish and its connection; the encoder is told why. */
  close(reason: string): void;
};

// An encoder sends its audio and video configuration within milliseconds of each other; one that
// has sent only one of them this long after is publishing a single track.
const SINGLE_TRACK_SETTLE_MS = 2_000;

export class LivePublisher implements RtmpPublisher {
  readonly id: string;
  readonly connectedAt: number;
  readonly media: Promise<RtmpMediaInfo>;
  readonly ended: Promise<{ reason: string }>;
  private lastMedia = Date.now();
  private info: RtmpMediaInfo = {};
  private mediaSettled = false;
  private endReason: string | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private settleMedia!: (info: RtmpMediaInfo) => void;
  private failMedia!: (error: Error) => void;
  private settleEnded!: (value: { reason: string }) => void;

  constructor(
    readonly connection: RtmpConnection,
    readonly streamKey: string,
    readonly remoteAddress: string,
    readonly readUrl: string,
    readonly protocol: LiveIngestProtocol,
    /** When the encoder connected: a relay's publisher connected to the relay earlier than it publishes here. */
    connectedAt = Date.now(),
  ) {
    this.id = connection.id;
    this.connectedAt = connectedAt;
    this.media = new Promise((resolve, reject) => {
      this.settleMedia = resolve;
      this.failMedia = reject;
    });
    // Callers that never look at `media` must not see an unhandled rejection when a publish ends early.
    this.media.catch(() => undefined);
    this.ended = new Promise((resolve) => {
      this.settleEnded = resolve;
    });
  }

  get isMediaKnown(): boolean {
    return this.mediaSettled;
  }

  get hasEnded(): boolean {
    return this.endReason !== undefined;
  }

  lastMediaAt(): number {
    return this.lastMedia;
  }

  close(reason: string): void {
    const told = withoutStreamKey(reason, this.streamKey);
    this.connection.close(told, { code: 'NetStream.Publish.Failed', description: told });
  }

  /** Notes a media message whose codec was already checked; throws on an unreadable sequence header. */
  recordMedia(kind: 'audio' | 'video', body: Buffer): void {
    this.lastMedia = Date.now();
    if (this.mediaSettled) return;
    if (kind === 'video' && !this.info.video && isAvcSequenceHeader(body)) {
      this.info.video = describeAvcSequenceHeader(body, this.connection.frameRate);
    } else if (kind === 'audio' && !this.info.audio && isAacSequenceHeader(body)) {
      this.info.audio = describeAacSequenceHeader(body);
    } else {
      return;
    }
    if (this.info.video && this.info.audio) {
      this.resolveMedia();
    } else {
      this.settleTimer ??= setTimeout(() => this.resolveMedia(), SINGLE_TRACK_SETTLE_MS);
    }
  }

  end(reason: string): void {
    if (this.endReason !== undefined) return;
    this.endReason = reason;
    clearTimeout(this.settleTimer);
    if (!this.mediaSettled) {
      this.mediaSettled = true;
      this.failMedia(new Error(`the publish ended before its media was known: ${reason}`));
    }
    this.settleEnded({ reason });
  }

  private resolveMedia(): void {
    if (this.mediaSettled) return;
    this.mediaSettled = true;
    clearTimeout(this.settleTimer);
    // The frame rate comes from onMetaData, which may arrive after the sequence header.
    const frameRate = this.connection.frameRate;
    if (this.info.video && this.info.video.frameRate === undefined && frameRate !== undefined) {
      this.info.video = { ...this.info.video, frameRate };
    }
    this.settleMedia(this.info);
  }
}
