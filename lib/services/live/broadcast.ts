import { mkdir, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { readFragmentTimings, readInitTracks, readTrackDefaults, type InitTrack, type TrackFragmentDefaults } from '../../media/live/fragment-timing';
import type { LiveRung, LiveSourceInfo } from '../../media/live/live-ladder';
import { FIRST_OUTPUT_FD, liveTranscodeArgs } from '../../media/live/live-transcode-args';
import { liveSlateArgs } from '../../media/live/slate-args';
import type { LiveSegmenterEvent } from '../../media/live/live-segmenter';
import type { LiveVariant } from '../../media/live/live-playlists';
import type { EmbeddedLiveSubtitle } from '../../schemas/live-captions';
import type { LatencyMode } from '../../schemas/live-stream';
import { buildCaptionCues } from '../../media/captions/caption-cues';
import type { BroadcastMirror } from './broadcast-mirror';
import { appendCaptionLines, appendIndexLine, captionsIndexPath, connectionDirectory, liveInitPath, liveSegmentPath, segmentIndexPath, writeFileAtomically, type IndexedSegment } from './live-files';
import { startLiveCaptioner } from './live-captioner';
import { LiveCaptionsTrack } from './live-captions';
import { startLivePackager, type LivePackager } from './live-packager';
import { LiveTimeline } from './live-timeline';
import { LATENCY_PROFILES, type LatencyProfile } from './latency-profiles';

// A broadcast: what one live stream sends from its first connection until it goes idle, across
// reconnects within its reconnect window. It owns the packager of the current connection and the
// renditions' timelines players read; the runtime (live-runtime.ts) owns its lifecycle.

type Connection = {
  index: number;
  /** What it carries: the publisher's media, or the slate shown while the publisher is away. */
  kind: 'content' | 'slate';
  startedAtMs: number;
  packager: LivePackager;
  /** Per rung: media seconds of this connection already in complete segments. */
  cursorSeconds: number[];
  /** Per rung: the first segment of this connection is still to come (it carries the discontinuity). */
  firstSegmentPending: boolean[];
  /** Wall clock of the connection's first media (see anchorOf); null until its first fragment. */
  anchorMs: number | null;
  /** Media time (the publisher's clock) of the connection's first fragment. */
  mediaStartSeconds: number;
  /** Per rung: the tracks of this connection's init segment, to read its fragments' times. */
  inits: Array<RungTracks | null>;
};

/** Generated live captions (the stream's generated_subtitles): the recogniser, and the rendition's name and language. */
export type LiveCaptionsSettings = { binary: string; modelDir: string; name: string; languageCode: string };

/**
 * The broadcast's text: `generated` captions made here (null for none), and the CEA-608 channels
 * the publisher's video carries (`embedded`), which the multivariant playlist declares.
 */
export type BroadcastText = { generated: LiveCaptionsSettings | null; embedded: EmbeddedLiveSubtitle[] };

/**
 * A broadcast another node began (it died; its publisher reconnected here): `connections` it
 * had, and the first media sequence number free after every segment it could have made.
 */
export type BroadcastResume = { connections: number; firstMsn: number };

export type BroadcastOptions = { mirror?: BroadcastMirror | null; resume?: BroadcastResume };

/**
 * How long after its end a captions segment waits for the recogniser at most (see
 * live-captions.ts): a player 3–4 s behind the live edge (reduced latency) still gets it in time.
 */
const CAPTIONS_HOLD_BACK_SECONDS = 3;
/** A recogniser still answering this long after its feed ended is not waited for. */
const CAPTIONER_FINISH_MS = 5_000;

type PackagerSetup = {
  kind: Connection['kind'];
  startedAtMs: number;
  transcode: { args: string[]; outputFds: number[]; speechFd?: number };
  redact: string | null;
  ffmpegPath: string;
  stopGraceMs?: number;
};

const BEHIND_WARNING_SECONDS = 3;

type RungTracks = { tracks: InitTrack[]; defaults: Map<number, TrackFragmentDefaults> };
type RungInfo = RungTracks & { peakBitsPerSecond: number };

const DEFAULT_SLATE_FRAME_RATE = 30;
// A slate has nothing worth flushing, and its ffmpeg took up to 0.9 s to leave after SIGTERM (its
// endless loop keeps the filters busy): time a returning publisher would wait.
const SLATE_STOP_GRACE_MS = 100;

export class Broadcast {
  readonly profile: LatencyProfile;
  readonly timelines: LiveTimeline[];
  private readonly rungInfo: Array<RungInfo | null>;
  private connection: Connection | null = null;
  private connectionCount: number;
  private readonly msnFloor: number;
  /** Discontinuities before this node's first segment (a resumed broadcast's earlier connections). */
  readonly discontinuitiesBefore: number;
  private readonly mirror: BroadcastMirror | null;
  private readonly resumed: boolean;
  /** Counts disconnect() calls, so a connection still setting up when one came does not start. */
  private disconnects = 0;
  private writes: Promise<void> = Promise.resolve();
  private ended = false;
  private onFirstSegments: (() => void) | null = null;
  private behindWarned = false;
  /** The generated captions rendition; null when the stream has none. */
  readonly captions: LiveCaptionsTrack | null;
  private captioners: Promise<void>[] = [];

  constructor(
    readonly liveStreamId: string,
    readonly assetId: string | null,
    readonly broadcastId: string,
    readonly latencyMode: LatencyMode,
    readonly rungs: LiveRung[],
    readonly directory: string,
    private readonly log: Logger,
    readonly text: BroadcastText = { generated: null, embedded: [] },
    { mirror = null, resume }: BroadcastOptions = {},
  ) {
    this.mirror = mirror;
    this.resumed = resume !== undefined;
    this.connectionCount = resume?.connections ?? 0;
    this.msnFloor = resume?.firstMsn ?? 0;
    this.discontinuitiesBefore = Math.max(0, (resume?.connections ?? 0) - 1);
    this.profile = LATENCY_PROFILES[latencyMode];
    this.captions = text.generated ? new LiveCaptionsTrack(CAPTIONS_HOLD_BACK_SECONDS, this.profile.segmentSeconds) : null;
    this.timelines = rungs.map((rung) => new LiveTimeline(rung.name, this.profile.segmentSeconds));
    this.rungInfo = rungs.map(() => null);
  }

  /** Continued from another node (see BroadcastResume). */
  get isResumed(): boolean {
    return this.resumed;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Playable once every rendition has a segment. */
  get isPlayable(): boolean {
    return this.timelines.every((timeline) => timeline.segments.length > 0);
  }

  /** Calls back once, when every rendition has its first segment. */
  whenPlayable(callback: () => void): void {
    if (this.isPlayable) callback();
    else this.onFirstSegments = callback;
  }

  /**
   * Starts packaging a (re)connected publisher; resolves when that connection's media has ended.
   * `hasAudio`: the publisher sends audio (the captions' recogniser listens to it).
   */
  connect({ readUrl, connectedAtMs, ffmpegPath, preset, hasAudio }: { readUrl: string; connectedAtMs: number; ffmpegPath: string; preset: string; hasAudio: boolean }): Promise<void> {
    // The captions feed goes on the pipe after the rungs'.
    const speechFd = this.captions && hasAudio ? FIRST_OUTPUT_FD + this.rungs.length : undefined;
    const transcode = liveTranscodeArgs({
      inputUrl: readUrl,
      rungs: this.rungs,
      fragmentSeconds: this.profile.fragmentSeconds,
      preset,
      audioCodec: 'copy',
      ...(speechFd !== undefined && { speechFd }),
    });
    return this.runConnection({ kind: 'content', startedAtMs: connectedAtMs, transcode: { ...transcode, ...(speechFd !== undefined && { speechFd }) }, redact: readUrl.slice(readUrl.lastIndexOf('/') + 1), ffmpegPath });
  }

  /**
   * Shows the slate while the publisher is away: a connection of its own (after a discontinuity,
   * like a reconnect) until disconnect() stops it; resolves then.
   */
  showSlate({ imagePath, source, ffmpegPath, preset }: { imagePath: string; source: LiveSourceInfo; ffmpegPath: string; preset: string }): Promise<void> {
    const startedAtMs = this.slateStart();
    const frameRate = source.video?.frameRate && source.video.frameRate <= 60 ? source.video.frameRate : DEFAULT_SLATE_FRAME_RATE;
    const transcode = liveSlateArgs({
      imagePath,
      rungs: this.rungs,
      sourceSize: source.video ? { width: source.video.width, height: source.video.height } : null,
      frameRate,
      audio: source.audio ? { sampleRate: source.audio.sampleRate, channels: source.audio.channels } : null,
      segmentSeconds: this.profile.segmentSeconds,
      fragmentSeconds: this.profile.fragmentSeconds,
      // What the publisher's last segment left unfilled comes at once, then a fragment more: the
      // slate stays on the wall clock, so the time it fills is the time the publisher was away and
      // latency is the same after the gap (a fixed 1.5 s burst ran ahead: reduced 3.9 s → 7.6 s).
      burstSeconds: Math.max(0, Date.now() - startedAtMs) / 1000 + this.profile.fragmentSeconds,
      preset,
    });
    return this.runConnection({ kind: 'slate', startedAtMs, transcode, redact: null, ffmpegPath, stopGraceMs: SLATE_STOP_GRACE_MS });
  }

  // A slate fills the gap from where the publisher's media stopped: dated from the end of the last
  // segment (the seconds since come at once, see showSlate), so the timeline runs on without a
  // hole and the slate's dates stay on the wall clock.
  private slateStart(): number {
    const last = this.timelines[0]?.segments.at(-1);
    const now = Date.now();
    return last ? Math.min(now, last.programDateTime.getTime() + last.durationSeconds * 1000) : now;
  }

  private async runConnection({ kind, startedAtMs, transcode, redact, ffmpegPath, stopGraceMs }: PackagerSetup): Promise<void> {
    const disconnectsBefore = this.disconnects;
    const index = this.connectionCount;
    this.connectionCount += 1;
    await mkdir(connectionDirectory(this.directory, index), { recursive: true });
    if (this.disconnects !== disconnectsBefore) return;
    this.mirror?.connectionStarted(this.connectionCount);
    const firstMsn = Math.max(this.msnFloor, ...this.timelines.map((timeline) => timeline.nextMsn));
    const connection: Connection = {
      index,
      kind,
      startedAtMs,
      cursorSeconds: this.rungs.map(() => 0),
      firstSegmentPending: this.rungs.map(() => index > 0),
      anchorMs: null,
      mediaStartSeconds: 0,
      inits: this.rungs.map(() => null),
      packager: startLivePackager({
        ffmpegPath,
        transcode,
        redact,
        rungs: this.rungs,
        segmentSeconds: this.profile.segmentSeconds,
        firstMsn,
        ...(stopGraceMs !== undefined && { stopGraceMs }),
        log: this.log,
        output: {
          onInit: (rungIndex, init) => this.acceptInit(connection, rungIndex, init),
          onEvents: (rungIndex, events) => this.acceptEvents(connection, rungIndex, events),
          onDrift: (seconds) => this.noteDrift(seconds),
        },
      }),
    };
    this.connection = connection;
    this.listenForCaptions(connection);
    const result = await connection.packager.done;
    for (const timeline of this.timelines) timeline.dropOpenSegment();
    await this.writes;
    if (this.connection === connection) this.connection = null;
    if (result.error) this.log.warn({ connection: index, kind, error: result.error }, 'live packager stopped with an error');
  }

  // The connection's speech goes to its own recogniser; what it hears becomes cues of the captions
  // rendition and lines of captions.jsonl (the recording's generated_live track).
  private listenForCaptions(connection: Connection): void {
    const captions = this.captions;
    const settings = this.text.generated;
    if (!captions || !settings) return;
    const feed = connection.packager.speech;
    captions.openConnection(connection.index, { captioned: feed !== null });
    if (!feed) return;
    const captioner = startLiveCaptioner({
      binary: settings.binary,
      modelDir: settings.modelDir,
      feed,
      log: this.log.child({ connection: connection.index }),
      // The feed starts with the connection's first audio, taken as its first segment's start.
      onUtterance: (words) => {
        const cues = buildCaptionCues(words);
        captions.addCues(connection.index, cues, words.at(-1)!.end);
        this.queueWrite(() => appendCaptionLines(this.directory, connection.index, cues));
        this.mirror?.lines(captionsIndexPath(this.directory, connection.index), cues.map((cue) => JSON.stringify(cue)));
      },
    });
    const finished = Promise.race([
      captioner.done,
      connection.packager.done.then(() => new Promise<void>((resolve) => setTimeout(resolve, CAPTIONER_FINISH_MS).unref())),
    ]).then(() => {
      captioner.stop();
      captions.finishConnection(connection.index);
    });
    this.captioners.push(finished);
  }

  /** Stops the current connection's packager (the publisher is closed by the caller). */
  disconnect(): void {
    this.disconnects += 1;
    this.connection?.packager.stop();
  }

  /** Resolves once every connection's recogniser has said all it heard (or was given up on). */
  async captionsHeard(): Promise<void> {
    await Promise.all(this.captioners);
  }

  /** No more connections: playlists gain EXT-X-ENDLIST. */
  end(): void {
    this.ended = true;
    for (const timeline of this.timelines) timeline.end();
    this.captions?.end();
  }

  /** Waits until every segment (and every caption the recognisers still had) written so far is on disk. */
  async flushed(): Promise<void> {
    await Promise.all(this.captioners);
    await this.writes;
  }

  async removeFiles(): Promise<void> {
    await this.writes;
    await rm(this.directory, { recursive: true, force: true });
  }

  variants(): Array<Omit<LiveVariant, 'uri'> & { rendition: string }> {
    return this.rungs.flatMap((rung, index) => {
      const info = this.rungInfo[index];
      if (!info) return [];
      const video = info.tracks.find((track) => track.kind === 'video');
      const codecs = info.tracks.filter((track) => track.kind !== 'other').map((track) => track.codec).join(',');
      // BANDWIDTH is the peak segment bit rate seen so far (every rendition has a segment before
      // the playlist is served); the encoder's target only stands in until then.
      const declared = rung.kind === 'encode' ? rung.maxRate + 128_000 : 0;
      return [
        {
          rendition: rung.name,
          bandwidth: Math.round(info.peakBitsPerSecond > 0 ? info.peakBitsPerSecond : declared),
          codecs,
          ...(video?.width && video.height && { resolution: { width: video.width, height: video.height } }),
        },
      ];
    });
  }

  private acceptInit(connection: Connection, rungIndex: number, init: Buffer): void {
    const rung = this.rungs[rungIndex]!;
    this.timelines[rungIndex]!.setInit(connection.index, init);
    const tracks: RungTracks = { tracks: readInitTracks(init), defaults: readTrackDefaults(init) };
    connection.inits[rungIndex] = tracks;
    // The multivariant playlist names the publisher's codecs; a slate's come and go with it.
    if (connection.kind === 'content') this.rungInfo[rungIndex] = { ...tracks, peakBitsPerSecond: this.rungInfo[rungIndex]?.peakBitsPerSecond ?? 0 };
    const initPath = liveInitPath(this.directory, connection.index, rung.name);
    this.queueWrite(() => writeFileAtomically(initPath, init));
    // The source rendition is what a recording is made of: another node may have to finish it.
    if (rungIndex === 0) this.mirror?.file(initPath, init);
  }

  private acceptEvents(connection: Connection, rungIndex: number, events: LiveSegmenterEvent[]): void {
    const timeline = this.timelines[rungIndex]!;
    const rung = this.rungs[rungIndex]!;
    for (const event of events) {
      if (connection.anchorMs === null) {
        connection.anchorMs = this.anchorOf(connection, rungIndex, event.type === 'part' ? event.part.bytes : event.bytes);
        this.captions?.setMediaStart(connection.index, connection.mediaStartSeconds);
      }
      const programDateTime = new Date(connection.anchorMs + connection.cursorSeconds[rungIndex]! * 1000);
      const discontinuity = connection.firstSegmentPending[rungIndex]!;
      if (event.type === 'part') {
        timeline.addPart({ msn: event.msn, connection: connection.index, programDateTime, discontinuity, part: event.part });
        continue;
      }
      connection.firstSegmentPending[rungIndex] = false;
      connection.cursorSeconds[rungIndex]! += event.durationSeconds;
      const filePath = liveSegmentPath(this.directory, connection.index, rung.name, event.msn);
      timeline.addSegment({ msn: event.msn, connection: connection.index, durationSeconds: event.durationSeconds, programDateTime, discontinuity, filePath, bytes: event.bytes });
      if (rungIndex === 0) this.captions?.addSegment({ msn: event.msn, connection: connection.index, durationSeconds: event.durationSeconds, programDateTime, discontinuity });
      const info = this.rungInfo[rungIndex];
      if (info && connection.kind === 'content' && event.durationSeconds > 0) info.peakBitsPerSecond = Math.max(info.peakBitsPerSecond, (event.bytes.length * 8) / event.durationSeconds);
      const indexed: IndexedSegment | null =
        rungIndex === 0
          ? { msn: event.msn, durationSeconds: event.durationSeconds, programDateTime: programDateTime.toISOString(), ...(connection.kind === 'slate' && { slate: true }) }
          : null;
      this.queueWrite(async () => {
        await writeFileAtomically(filePath, event.bytes);
        if (indexed) await appendIndexLine(this.directory, connection.index, indexed);
      });
      if (indexed) {
        this.mirror?.file(filePath, event.bytes);
        this.mirror?.lines(segmentIndexPath(this.directory, connection.index), [JSON.stringify(indexed)]);
      }
      if (this.onFirstSegments && this.isPlayable) {
        const callback = this.onFirstSegments;
        this.onFirstSegments = null;
        callback();
      }
    }
  }

  // EXT-X-PROGRAM-DATE-TIME is when a frame reached the ingest. The packager keeps the publisher's
  // clock (-copyts), which encoders start at 0 when they publish, so the first fragment's media
  // time after the publish was accepted dates it, however late the packager joined. A clock that
  // did not start at 0 (it would date the media in the future) falls back to the arrival time.
  private anchorOf(connection: Connection, rungIndex: number, fragment: Buffer): number {
    const info = connection.inits[rungIndex];
    const now = Date.now();
    if (!info) return now;
    const timings = readFragmentTimings(fragment, info.defaults);
    const timed = info.tracks.find((track) => track.kind === 'video') ?? info.tracks[0];
    const timing = timings.find((candidate) => candidate.trackId === timed?.trackId) ?? timings[0];
    if (!timed || !timing) return now;
    connection.mediaStartSeconds = Number(timing.baseDecodeTime) / timed.timescale;
    const anchor = connection.startedAtMs + connection.mediaStartSeconds * 1000;
    const arrivedBy = now - (timing.durationTicks / timed.timescale) * 1000;
    return anchor <= now ? anchor : arrivedBy;
  }

  // Viewers notice a packager that cannot keep up as a latency that keeps growing, then stalls;
  // the operator is told once per broadcast what to change.
  private noteDrift(seconds: number): void {
    if (seconds < BEHIND_WARNING_SECONDS || this.behindWarned) return;
    this.behindWarned = true;
    this.log.warn(
      { driftSeconds: Math.round(seconds * 10) / 10, renditions: this.rungs.map((rung) => rung.name) },
      'the live packager is falling behind real time: lower LIVE_MAX_STREAMS or use a faster LIVE_X264_PRESET',
    );
  }

  // Writes run one after another, so segments.jsonl lists segments in order and only after their file.
  private queueWrite(write: () => Promise<void>): void {
    this.writes = this.writes.then(write).catch((error: unknown) => {
      this.log.error({ err: error, broadcast: this.broadcastId }, 'could not write live media');
    });
  }
}
