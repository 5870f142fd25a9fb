import { SPEECH_PCM_ARGS, SPEECH_SAMPLE_RATE } from '../captions/speech-audio-args';
import type { EncodedLiveRung, LiveRung } from './live-ladder';

// ffmpeg arguments for the live packager, as data. One ffmpeg per broadcast reads the ingest once
// and writes every rung as its own fragmented MP4 to its own pipe, so decoding happens once and
// the encoded rungs see exactly the source's frames and timestamps.

/** Every rung's video track uses this timescale, so equal times are equal tick counts across rungs. */
export const LIVE_VIDEO_TIMESCALE = 90_000;
/** The runtime passes output i's pipe as file descriptor 3 + i (0–2 are stdio, progress is on 1). */
export const FIRST_OUTPUT_FD = 3;
const AAC_BITRATE = '128k';

export type LiveTranscodeInput = {
  /**
   * rtmp://127.0.0.1:{port}/app/{key}: holds the stream key, so never log these arguments
   * unredacted, nor ffmpeg's stderr, whose error lines start with the input URL.
   */
  inputUrl: string;
  rungs: LiveRung[];
  /**
   * Fragment (= part) duration: a fragment ends at the first frame that reaches it (so it may run
   * up to one frame longer, e.g. 15 frames of 29.97 fps are 0.5005 s) and before every keyframe.
   */
  fragmentSeconds: number;
  /** x264 preset of the encoded rungs (`superfast` keeps two rungs real-time on 2 cores). */
  preset: string;
  audioCodec: 'copy' | 'aac';
  /**
   * Also write the first audio stream for the live captions recogniser to this pipe: raw 16 kHz
   * mono s16le (see speechPcmOutputArgs). Only for a source with audio.
   */
  speechFd?: number;
};

/**
 * The recogniser's feed: raw PCM carries no timestamps, so gaps in the publisher's audio are
 * filled with silence (aresample async) and a recognised time, counted in samples, stays the
 * media time since the first audio sample.
 */
export const speechPcmOutputArgs = (fd: number): string[] => [
  '-map',
  '0:a:0',
  '-vn',
  '-af',
  `aresample=${SPEECH_SAMPLE_RATE}:async=1`,
  ...SPEECH_PCM_ARGS,
  '-f',
  's16le',
  `pipe:${fd}`,
];

// Input side, measured with node-media-server 2.7.4 on this box (720p30 publisher, packager
// started when the publish begins): ffmpeg's defaults put the first fragment out 1.6 s after the
// publish began, its last frame 1.1 s old, because probing reads about 20 frames to estimate the
// frame rate; `-fpsprobesize 0` skips that (the rate then comes from the FLV metadata or the SPS)
// and brings it to 1.0 s and 0.5 s. Smaller probes (32 bytes, or 100 kB / 0.5 s) were no faster
// and left the AAC stream without parameters. `-fflags nobuffer` is deliberately absent: it throws
// away the packets read while probing, i.e. the keyframe the server sends first, so output began
// 2.3 s in and the first GOP was lost. The 2 s analyze bound only matters for a stream whose
// metadata announces a track that never comes.
const INPUT_ARGS = ['-probesize', '1000000', '-analyzeduration', '2000000', '-fpsprobesize', '0', '-copyts'];

/** Quiet, with `key=value` progress blocks on stdout once a second (see liveTranscodeArgs). */
export const PROGRESS_ARGS = ['-nostdin', '-loglevel', 'warning', '-nostats', '-stats_period', '1', '-progress', 'pipe:1'];

const filterGraph = (encoded: EncodedLiveRung[]): string => {
  // One decode, split once per encoded rung. format=yuv420p: players' H.264 decoders want 4:2:0
  // 8-bit, whatever the publisher sent (yuvj420p from phones, 4:2:2 from capture cards).
  const labels = encoded.map((_, index) => `[split${index}]`).join('');
  const scales = encoded.map((rung, index) => `[split${index}]scale=${rung.width}:${rung.height},format=yuv420p[video${index}]`);
  return [`[0:v:0]split=${encoded.length}${labels}`, ...scales].join(';');
};

export const fragmentedMp4Args = (fragmentSeconds: number, fd: number): string[] => [
  // One timeline for every rung. By default each output is rebased on its own earliest packet and
  // each of its tracks restarts at 0, and those differ between rungs: a passed-through video with
  // B-frames starts decoding before it presents, an encoded rung does not, and audio may start
  // before video. Rungs then drifted apart by tens of milliseconds (measured: 46 ms and 67 ms).
  // With the input's timestamps kept (-copyts), frag_discont plus no edit list writes each track's
  // own decode times into its tfdt boxes, and make_non_negative only moves an output when a time
  // would go below zero — the AAC encoder's priming, which every rung shares, so all move alike.
  // A connection's last segment ends every track together: a publisher that drops mid-fragment
  // leaves audio ending a frame or two before the video, and Chromium will not play across the
  // hole that leaves before the next connection (measured: 26 ms, a stall hls.js seeked over).
  '-shortest',
  '-use_editlist',
  '0',
  '-avoid_negative_ts',
  'make_non_negative',
  '-f',
  'mp4',
  // frag_keyframe: a fragment (part) ends before every video keyframe, so a keyframe always opens
  // one; frag_duration cuts the GOPs into parts. empty_moov: the init segment (ftyp+moov) comes out
  // first, without samples. default_base_moof: data offsets relative to each moof, so a fragment
  // is self-contained and can be served on its own. negative_cts_offsets: a passed-through video
  // with B-frames decodes its first frame before it shows it; with signed composition offsets its
  // fragments' decode times start where it is shown. hls.js lines a connection's first decode time
  // up with the end of the one before, so the B-frames' delay (67 ms at 30 fps) became a hole at
  // every reconnect and slate, which Chromium would not play across.
  '-movflags',
  '+frag_keyframe+empty_moov+default_base_moof+frag_discont+negative_cts_offsets',
  '-frag_duration',
  String(Math.round(fragmentSeconds * 1_000_000)),
  `pipe:${fd}`,
];

const audioArgs = (audioCodec: 'copy' | 'aac'): string[] =>
  audioCodec === 'copy' ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', AAC_BITRATE, '-ar', '48000', '-ac', '2'];

/**
 * The x264 settings every live rung shares, the publisher's encoded rungs and a slate's alike;
 * `keyframes` is -force_key_frames' value (the source's keyframes, or a slate's every segment).
 */
export const liveX264Args = ({ preset, tune, keyframes }: { preset: string; tune: string; keyframes: string }): string[] => [
  '-c:v',
  'libx264',
  '-preset',
  preset,
  // zerolatency: no frame lookahead and sliced threads, so a frame leaves the encoder as soon as
  // it is encoded instead of a second or more later.
  '-tune',
  tune,
  // Keyframes exactly where asked and nowhere else (no scene cuts, no x264 GOP limit), so every
  // rung cuts segments at the same instants and players can switch between them.
  '-force_key_frames',
  keyframes,
  '-sc_threshold',
  '0',
  '-x264-params',
  'keyint=infinite',
  // No B-frames (zerolatency implies it; stated so that a preset change cannot undo it): B-frames
  // hold frames back for reordering, which is latency, and give decode times that precede
  // presentation times, so parts would start at other decode times than the source's.
  '-bf',
  '0',
];

const encodeArgs = (rung: EncodedLiveRung, preset: string): string[] => [
  // Source timestamps, untouched: the default frame-rate time base would round them to a 1/fps
  // grid, moving the keyframes of encoded rungs off those of the passed-through one.
  '-fps_mode',
  'passthrough',
  '-enc_time_base:v',
  `1/${LIVE_VIDEO_TIMESCALE}`,
  ...liveX264Args({ preset, tune: 'zerolatency', keyframes: 'source' }),
  '-b:v',
  String(rung.videoBitrate),
  '-maxrate',
  String(rung.maxRate),
  '-bufsize',
  String(rung.bufSize),
];

/**
 * One ffmpeg for the whole ladder: output i (rung i) is written to `pipe:{3+i}` as fragmented MP4
 * with the source's audio muxed in. Progress goes to stdout as `key=value` lines once a second,
 * each block ending with `progress=continue` (`progress=end` at exit). What the runtime should read:
 * - `out_time_us`: media time written so far, on the publisher's clock (so not from 0 when the
 *   packager joins a stream in progress); `N/A` until the first packet is out.
 * - `speed=1.02x`: media time over wall time since ffmpeg started. It is cumulative, so it lags:
 *   after the server's burst of buffered GOP at connect it reads high for a while, and it cannot
 *   exceed ~1 on a live input anyway.
 * - Falling behind shows sooner as drift: (wall time − out_time) since the first block stays flat
 *   while the packager keeps up and grows while it does not; growth over a few seconds is the cue
 *   to drop the lowest encoded rung. `drop_frames` / `dup_frames` stay 0 (timestamps pass through).
 */
export const liveTranscodeArgs = ({ inputUrl, rungs, fragmentSeconds, preset, audioCodec, speechFd }: LiveTranscodeInput): { args: string[]; outputFds: number[] } => {
  if (rungs.length === 0) throw new Error('A live transcode needs at least one rung');
  if (!(fragmentSeconds > 0)) throw new RangeError(`fragmentSeconds must be positive, got ${fragmentSeconds}`);
  const encoded = rungs.filter((rung): rung is EncodedLiveRung => rung.kind === 'encode');
  const args = [
    '-hide_banner',
    ...PROGRESS_ARGS,
    ...INPUT_ARGS,
    '-i',
    inputUrl,
    ...(encoded.length > 0 ? ['-filter_complex', filterGraph(encoded)] : []),
  ];
  const outputFds: number[] = [];
  rungs.forEach((rung, index) => {
    const fd = FIRST_OUTPUT_FD + index;
    outputFds.push(fd);
    // `?`: a stream without audio still gets its video (and the reverse never happens: the
    // ladder refuses a source without video unless the stream is audio-only).
    const audio = ['-map', '0:a:0?', ...audioArgs(audioCodec)];
    switch (rung.kind) {
      case 'copy':
        args.push('-map', '0:v:0', '-c:v', 'copy', ...audio, '-video_track_timescale', String(LIVE_VIDEO_TIMESCALE));
        break;
      case 'encode':
        args.push('-map', `[video${encoded.indexOf(rung)}]`, ...encodeArgs(rung, preset), ...audio, '-video_track_timescale', String(LIVE_VIDEO_TIMESCALE));
        break;
      case 'audio-only':
        args.push('-map', '0:a:0', '-vn', ...audioArgs(audioCodec));
        break;
    }
    args.push(...fragmentedMp4Args(fragmentSeconds, fd));
  });
  if (speechFd !== undefined) {
    if (outputFds.includes(speechFd)) throw new Error(`pipe:${speechFd} already carries a rung`);
    args.push(...speechPcmOutputArgs(speechFd));
  }
  return { args, outputFds };
};

/**
 * A broadcast's recording as one progressive MP4: the concat demuxer plays the per-connection
 * pieces listed in `listFile` (see renderConcatList) back to back, each starting where the one
 * before ended, so the time between a disconnect and the reconnect is not part of the recording.
 * Streams are copied, so every piece must have the same codec parameters (the passed-through rung
 * of one publisher does; a publisher that changes resolution between connections does not).
 */
export const recordingRemuxArgs = ({ listFile, output }: { listFile: string; output: string }): string[] => [
  '-hide_banner',
  '-nostdin',
  '-loglevel',
  'error',
  '-f',
  'concat',
  // Pieces are listed by absolute path.
  '-safe',
  '0',
  '-i',
  listFile,
  '-map',
  '0:v?',
  '-map',
  '0:a?',
  '-c',
  'copy',
  // moov in front: the on-demand pipeline and players read the index before the media.
  '-movflags',
  '+faststart',
  '-f',
  'mp4',
  '-y',
  output,
];

export type RecordingPiece = {
  path: string;
  /** The piece's media duration: the sum of its segments' durations. */
  durationSeconds: number;
};

/**
 * The concat demuxer's list file for recordingRemuxArgs. Each piece's duration is written out
 * because ffmpeg 5.1 misreads it: for a fragmented MP4 whose timeline does not start at 0 (the
 * packager keeps the publisher's clock) it takes the end time for the duration, and a piece whose
 * clock read 20 s put 20 s of nothing before the next one. With the duration given, the next piece
 * starts right after the video of this one; audio that outlasts the video by a few milliseconds
 * overlaps the next piece's start, which ffmpeg evens out with a "non-monotonous DTS" warning.
 */
export const renderConcatList = (pieces: readonly RecordingPiece[]): string =>
  `ffconcat version 1.0\n${pieces
    // Inside single quotes only a single quote needs escaping: close, escaped quote, reopen.
    .map((piece) => `file '${piece.path.replace(/'/g, "'\\''")}'\nduration ${piece.durationSeconds.toFixed(6)}\n`)
    .join('')}`;
