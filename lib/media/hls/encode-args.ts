import { AUDIO_FRAGMENT_MICROSECONDS, AUDIO_SAMPLE_RATE, type AudioOutputChannels } from './audio-plan';
import { sdrFilterThreadArgs, sdrOutputTags, thenToSdr, type SourceColour } from '../colour/sdr-conversion';
import { buildVideoFilterArgs, buildVideoFilterGraph, type OverlayImage } from '../overlay/overlay-filter';
import { presetForRung, type Rung } from './ladder';
import { VBV_INITIAL_FULLNESS } from './peak-bitrate';

// ffmpeg arguments as data, so they can be read and tested without running ffmpeg.

export const VIDEO_TIMESCALE = 90_000;
const KEYFRAME_INTERVAL_SECONDS = 2;

// Segments are served `immutable`, so every encode of a (rung, segment) must give the same bytes,
// or a CDN or browser holding one copy mixes two encodes. libx264's default threading broke that:
// - frame threads with VBV (our maxrate/bufsize) race: a frame's row-level rate control reads how
//   far the frames encoding beside it have got, so the bytes changed from run to run;
// - `-threads 0` means 1.5 × the CPUs the process may use, and the count changes the bitstream
//   (and is written into it), so a box or container with another CPU count gave other bytes.
// Sliced threads split each frame into a fixed number of slices encoded in parallel: the bytes
// depend on the slice count, not on timing or on the CPUs. (Decoder threads stay automatic:
// decoding is exact whatever their number.) x264 still picks its SIMD code by CPU, and its AVX-512
// code gives other bytes than AVX2 and older, so identical bytes across machines also need the
// same x264 and CPU features; moving a DATA_DIR elsewhere re-encodes evicted segments differently.
// Two slices keep both cores of a small box busy at about the speed of frame threads (a 4 s 1080p
// segment, median on an idle 2-core box: 1.20 s against 1.14 s; one thread: 1.32 s), and cost
// 0.01 dB of PSNR; four are no faster there.
export const X264_THREADS = 2;
export const X264_PARAMS = 'sliced-threads=1';

// Sliced threads are not enough once VBV is what decides a frame's size, as it is for a capped-CRF
// rung on hard content: each slice's row-level rate control predicts the frame from how far the
// other slice has got, so 1080p segments of grain came out different from run to run (a rung
// that rarely meets its cap, like the ABR rungs, rarely shows it). A capped-CRF rung is encoded by
// one x264 thread; decoding and scaling keep their own threads, and a busy machine has other
// segments for the second core.
const x264ThreadArgs = (rung: Rung): string[] =>
  rung.rateControl === undefined ? ['-threads', String(X264_THREADS), '-x264-params', X264_PARAMS] : ['-threads', '1'];

// Capped CRF (rungs planned with `rateControl`): a quality target per segment under a VBV cap, so
// easy pictures spend fewer bits than the cap and hard ones spend at most it. Rungs of older plans
// keep the average bitrate they were planned with, so their segments' bytes never change.
const rateControlArgs = (rung: Rung): string[] =>
  rung.rateControl === undefined
    ? ['-b:v', String(rung.videoBitrate), '-maxrate', String(rung.maxBitrate), '-bufsize', String(rung.videoBitrate * 2)]
    : [
        '-crf',
        String(rung.rateControl.crf),
        '-maxrate',
        String(rung.maxBitrate),
        '-bufsize',
        String(rung.rateControl.bufferBits),
        '-rc_init_occupancy',
        String(Math.round(rung.rateControl.bufferBits * VBV_INITIAL_FULLNESS)),
      ];

export type SegmentWindow = {
  seekSeconds: number;
  durationSeconds: number;
  // See encodeWindow: the input seek goes this far past the cut, and the trim filter (not the
  // seek) drops the frames before it.
  keyframeLookaheadSeconds?: number;
};

// The source window of a segment: the input options (before its `-i`) and the trim filter.
const windowArgs = ({ seekSeconds, durationSeconds, keyframeLookaheadSeconds = 0 }: SegmentWindow) => {
  const lookahead = seekSeconds > 0 ? keyframeLookaheadSeconds : 0;
  // Without a lookahead, ffmpeg's accurate seek drops what precedes the cut and starts the
  // timestamps there. With one, timestamps start at the seek point, so the cut is at −lookahead
  // and the kept frames are moved back to start at zero.
  const trim =
    lookahead > 0
      ? `trim=start=${(-lookahead).toFixed(6)}:end=${(durationSeconds - lookahead).toFixed(6)},setpts=PTS-STARTPTS`
      : `trim=end=${durationSeconds.toFixed(6)}`;
  return {
    inputOptions: [...(lookahead > 0 ? ['-noaccurate_seek'] : []), ...(seekSeconds > 0 ? ['-ss', (seekSeconds + lookahead).toFixed(6)] : [])],
    trim,
  };
};

// Everything before a segment encode's output options: the source window's input (seek included)
// and the watermark images, which as inputs must come before any output option.
const segmentInputArgs = (
  inputPath: string,
  window: { inputOptions: string[] },
  imageInputs: readonly string[],
  sourceColour: SourceColour | undefined,
): string[] => [
  '-hide_banner',
  '-nostdin',
  '-v',
  'error',
  ...sdrFilterThreadArgs(sourceColour),
  ...window.inputOptions,
  '-i',
  inputPath,
  ...imageInputs,
];

// Scaled to the rung, then (HDR and wide-gamut sources) converted to SDR BT.709 at that size.
const pictureFor = (rung: Rung, sourceColour: SourceColour | undefined): string => thenToSdr(`scale=${rung.width}:${rung.height}:flags=bicubic`, sourceColour);

// The output options of one rung's segment, up to and including its target: the options of
// `video` (the filter and/or `-map` giving the rung's picture) sit among them.
const videoSegmentOutputArgs = ({
  rung,
  durationSeconds,
  preset,
  video,
  sourceColour,
  target,
}: {
  rung: Rung;
  durationSeconds: number;
  preset: string;
  video: readonly string[];
  sourceColour: SourceColour | undefined;
  target: string;
}): string[] => {
  const frameRate = rung.frameRate ?? 30;
  const gop = Math.max(1, Math.round(frameRate * KEYFRAME_INTERVAL_SECONDS));
  // `-t` alone decides on a frame's end time, which drops the last frame of some windows; the
  // trim filter cuts exactly on start times, and a slightly longer `-t` just stops reading.
  const readLimit = durationSeconds + 2 / frameRate;
  return [
    '-t',
    readLimit.toFixed(6),
    '-an',
    '-sn',
    '-dn',
    '-map_metadata',
    '-1',
    '-fps_mode',
    'passthrough',
    // The default encoder time base is 1/frame-rate, which collapses timestamps of sources whose
    // frames are not on that grid (millisecond WebM timestamps at 23.976 fps, VFR phone video).
    '-enc_time_base:v',
    `1/${VIDEO_TIMESCALE}`,
    ...video,
    '-c:v',
    'libx264',
    '-preset',
    preset,
    '-profile:v',
    'high',
    '-level:v',
    rung.level,
    // Without B-frames decode and presentation times are equal, so independently encoded segments
    // line up on one timeline with no composition offsets to reconcile.
    '-bf',
    '0',
    '-g',
    String(gop),
    '-keyint_min',
    String(gop),
    '-sc_threshold',
    '0',
    ...rateControlArgs(rung),
    ...x264ThreadArgs(rung),
    '-video_track_timescale',
    String(VIDEO_TIMESCALE),
    ...sdrOutputTags(sourceColour),
    // No library versions in the init segment (`encoder` tag, compressor name): its bytes then
    // depend on the settings and x264 alone, not on which ffmpeg build wrote them.
    '-fflags',
    '+bitexact',
    '-f',
    'mp4',
    '-movflags',
    '+frag_keyframe+empty_moov+default_base_moof',
    target,
  ];
};

// One video segment of one rung, written to stdout as fragmented MP4 (init + fragments). Decode
// times start at zero; the caller moves them to the segment's place on the timeline.
export const buildVideoSegmentArgs = ({
  inputPath,
  rung,
  seekSeconds,
  durationSeconds,
  keyframeLookaheadSeconds = 0,
  preset = presetForRung(rung),
  overlays = [],
  sourceColour,
}: SegmentWindow & {
  inputPath: string;
  rung: Rung;
  preset?: string;
  /** Watermarks burned into the picture, laid out for the rung's size (see overlay-layout.ts). */
  overlays?: readonly OverlayImage[];
  /** An HDR or wide-gamut source's colour (the plan's), converted to SDR BT.709. */
  sourceColour?: SourceColour;
}): string[] => {
  const window = windowArgs({ seekSeconds, durationSeconds, keyframeLookaheadSeconds });
  const video = buildVideoFilterArgs({
    filters: `${window.trim},${pictureFor(rung, sourceColour)}`,
    pixelFormat: 'yuv420p',
    frame: rung,
    overlays,
  });
  return [
    ...segmentInputArgs(inputPath, window, video.inputs, sourceColour),
    ...videoSegmentOutputArgs({ rung, durationSeconds, preset, video: video.filter, sourceColour, target: 'pipe:1' }),
  ];
};

/** One rung of a multi-rung encode: its watermarks (laid out for its size) and x264 preset. */
export type SegmentOutput = { rung: Rung; overlays?: readonly OverlayImage[]; preset?: string };

// Output k of a multi-rung encode goes to this file descriptor (0–2 are stdin, stdout, stderr).
export const MULTI_RUNG_FIRST_FD = 3;
export const multiRungOutputFd = (index: number): number => MULTI_RUNG_FIRST_FD + index;

// The same segment of several rungs from one ffmpeg: the source window is read and decoded once,
// trimmed once, then split, and each copy is scaled (and watermarked) and encoded as
// buildVideoSegmentArgs does it, written to file descriptor multiRungOutputFd(k) for output k
// (the spawner opens pipes there). Each output's bytes are those buildVideoSegmentArgs writes for
// that rung (checked by a test): the per-output options are the same list, the graph gives the
// same frames, and the encoder and muxer of one output know nothing of the others.
export const buildMultiRungSegmentArgs = ({
  inputPath,
  outputs,
  seekSeconds,
  durationSeconds,
  keyframeLookaheadSeconds = 0,
  sourceColour,
}: SegmentWindow & {
  inputPath: string;
  outputs: ReadonlyArray<SegmentOutput>;
  sourceColour?: SourceColour;
}): string[] => {
  if (outputs.length === 0) throw new RangeError('a multi-rung encode needs at least one output');
  const window = windowArgs({ seekSeconds, durationSeconds, keyframeLookaheadSeconds });
  const copies = outputs.map((_, index) => `[copy${index}]`).join('');
  const chains = [`[0:v:0]${window.trim},split=${outputs.length}${copies}`];
  const imageInputs: string[] = [];
  // Input 0 is the video; each output's watermark images follow, in output order.
  let nextInput = 1;
  outputs.forEach(({ rung, overlays = [] }, index) => {
    const graph = buildVideoFilterGraph({
      filters: pictureFor(rung, sourceColour),
      pixelFormat: 'yuv420p',
      frame: rung,
      overlays,
      placement: { input: `copy${index}`, firstImageInput: nextInput, output: `rung${index}`, labelPrefix: `r${index}` },
    });
    chains.push(...graph.chains);
    imageInputs.push(...graph.inputs);
    nextInput += overlays.length;
  });
  return [
    ...segmentInputArgs(inputPath, window, imageInputs, sourceColour),
    '-filter_complex',
    chains.join(';'),
    ...outputs.flatMap(({ rung, preset = presetForRung(rung) }, index) =>
      videoSegmentOutputArgs({ rung, durationSeconds, preset, video: ['-map', `[rung${index}]`], sourceColour, target: `pipe:${multiRungOutputFd(index)}` }),
    ),
  ];
};

/**
 * The picture a segment encode of `rung` starts from, as chains of a larger graph reading the
 * source from input `sourceInput` (seeked with `inputOptions`) and the watermark images from
 * `firstImageInput` on, ending at `[output]`: what a quality measurement compares the encode with.
 * The trim ends the picture with the window (an input `-t` would count from the keyframe the seek
 * lands on, before the window, and cut it short).
 */
export const buildSegmentPictureGraph = ({
  rung,
  seekSeconds,
  durationSeconds,
  keyframeLookaheadSeconds = 0,
  overlays = [],
  sourceColour,
  sourceInput,
  firstImageInput,
  output,
}: SegmentWindow & {
  rung: Rung;
  overlays?: readonly OverlayImage[];
  sourceColour?: SourceColour;
  sourceInput: number;
  firstImageInput: number;
  output: string;
}): { inputOptions: string[]; imageInputs: string[]; chains: string[] } => {
  const window = windowArgs({ seekSeconds, durationSeconds, keyframeLookaheadSeconds });
  const graph = buildVideoFilterGraph({
    filters: `${window.trim},${pictureFor(rung, sourceColour)}`,
    pixelFormat: 'yuv420p',
    frame: rung,
    overlays,
    placement: { input: `${sourceInput}:v:0`, firstImageInput, output, labelPrefix: 'source' },
  });
  return { inputOptions: window.inputOptions, imageInputs: graph.inputs, chains: graph.chains };
};

// The init segment of a rung holds only the codec configuration (SPS/PPS), which libx264 derives
// from the settings, not the pictures: encoding one frame with a segment's exact arguments yields
// the same bytes as any segment encode (checked by a test), at a fraction of the cost. A player
// switching rungs asks for the new rung's init.mp4 before its segment.
// Watermarks do not change the codec configuration, but the init is made with the segments' exact
// arguments all the same, so that the test comparing the two keeps covering what segments do.
export const buildInitSegmentArgs = ({
  inputPath,
  rung,
  overlays = [],
  sourceColour,
}: {
  inputPath: string;
  rung: Rung;
  overlays?: readonly OverlayImage[];
  sourceColour?: SourceColour;
}): string[] => {
  const frameRate = rung.frameRate ?? 30;
  const args = buildVideoSegmentArgs({ inputPath, rung, seekSeconds: 0, durationSeconds: 1 / frameRate, overlays, sourceColour });
  args.splice(args.indexOf('-f'), 0, '-frames:v', '1');
  return args;
};

// One whole audio track, once, as fragmented MP4 on stdout: AAC-LC 48 kHz with an edit list that
// hides the encoder priming, cut into fixed-size fragments. Stereo, or mono for a mono track (what
// the multivariant playlist announces, see audioOutputChannels). Wider layouts are downmixed by
// libswresample's standard matrix (ITU-R BS.775: centre and surrounds at -3 dB into both sides, LFE
// left out, scaled so a full-scale mix cannot clip), never by keeping the first two channels.
export const buildAudioTrackArgs = ({
  inputPath,
  durationSeconds,
  streamIndex = 0,
  channels = 2,
  padToDuration = false,
}: {
  inputPath: string;
  durationSeconds: number;
  /** Which audio stream of the input, counted among its audio streams from 0. */
  streamIndex?: number;
  channels?: AudioOutputChannels;
  /** An input that ends early is padded with silence up to `durationSeconds` (added tracks align to the video). */
  padToDuration?: boolean;
}): string[] => [
  '-hide_banner',
  '-nostdin',
  '-v',
  'error',
  // A file that does not say which speaker each channel is (PCM in WAV without a channel mask)
  // gets the usual layout for its channel count, so the downmix knows where the centre is; by
  // default only mono and stereo are guessed, and a 6-channel stream could not be downmixed.
  '-guess_layout_max',
  '8',
  '-i',
  inputPath,
  '-t',
  durationSeconds.toFixed(6),
  '-map',
  `0:a:${streamIndex}`,
  '-vn',
  '-sn',
  '-dn',
  '-map_metadata',
  '-1',
  // Timestamps from the sample count, not the source: some files stamp their audio packets
  // unevenly (960-sample steps with jumps), which would otherwise leak into the fragments as gaps
  // and overlaps between segments. It also starts every track at 0, on the video's timeline.
  '-af',
  [`aresample=${AUDIO_SAMPLE_RATE}`, 'asetpts=N/SR/TB', ...(padToDuration ? [`apad=whole_dur=${durationSeconds.toFixed(6)}`] : [])].join(','),
  '-c:a',
  'aac',
  '-b:a',
  channels === 1 ? '64k' : '128k',
  '-ac',
  String(channels),
  '-ar',
  String(AUDIO_SAMPLE_RATE),
  // As for video: no library version in the init segment. (The AAC encode itself was already
  // deterministic: single-threaded, and the same bytes with its SIMD code disabled.)
  '-fflags',
  '+bitexact',
  '-f',
  'mp4',
  '-movflags',
  '+frag_keyframe+empty_moov+delay_moov+default_base_moof',
  '-frag_duration',
  String(AUDIO_FRAGMENT_MICROSECONDS),
  'pipe:1',
];
