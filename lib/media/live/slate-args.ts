import type { LiveRung } from './live-ladder';
import { FIRST_OUTPUT_FD, fragmentedMp4Args, LIVE_VIDEO_TIMESCALE, liveX264Args, PROGRESS_ARGS } from './live-transcode-args';

// ffmpeg arguments for a reconnect slate, as data: while a publisher is away inside its reconnect
// window, one ffmpeg shows a still image with silence in every rung of the broadcast, written
// like the packager's output (one fragmented MP4 per rung on pipe 3+i, progress on stdout), so the
// broadcast's timelines, playlists and recording take it as one more connection.
//
// The image is decoded and scaled once per rung, then repeated by the loop filter and paced to
// real time by the realtime filter (after a first burst, see burstThenRealTime): measured here
// for a 1080p source with two encoded rungs, 0.18 CPU-s per second, against 0.51 when the image
// demuxer re-reads and re-decodes the PNG for every frame (`-loop 1`). Keyframes fall every segment duration, so segments come out at the
// broadcast's own length and every rung cuts at the same instants.

export type SlateAudio = { sampleRate: number; channels: number };

export type SlateTranscodeInput = {
  /** A still image ffmpeg can read (the stream's reconnect_slate_url, checked, or the default card). */
  imagePath: string;
  rungs: LiveRung[];
  /** The source's picture size: the passed-through rung shows the slate at that size. */
  sourceSize: { width: number; height: number } | null;
  frameRate: number;
  /** The source's audio layout; null when the broadcast has no audio (nor has its slate). */
  audio: SlateAudio | null;
  segmentSeconds: number;
  fragmentSeconds: number;
  /** Seconds of slate produced at once when it starts (see burstThenRealTime); 0 paces from the first frame. */
  burstSeconds: number;
  preset: string;
};

// A still picture needs few bits once its keyframe is sent; the cap only bounds that keyframe.
const SLATE_CRF = '23';
const SOURCE_RUNG_MAX_RATE = 4_000_000;
const AAC_BITRATE = '128k';

type SlateVideoRung = { rungIndex: number; width: number; height: number; maxRate: number };

const videoRungsOf = (rungs: LiveRung[], sourceSize: SlateTranscodeInput['sourceSize']): SlateVideoRung[] =>
  rungs.flatMap((rung, rungIndex) => {
    if (rung.kind === 'encode') return [{ rungIndex, width: rung.width, height: rung.height, maxRate: rung.maxRate }];
    if (rung.kind === 'copy') {
      if (!sourceSize) throw new Error('A slate for a passed-through rung needs the source picture size');
      return [{ rungIndex, width: sourceSize.width, height: sourceSize.height, maxRate: SOURCE_RUNG_MAX_RATE }];
    }
    return [];
  });

// The first `burst` seconds come out at once, the rest in real time. The realtime filter paces a
// frame by its timestamp, so the burst's frames are given the first frame's (0) on the way in and
// their own back (counted from the frame or sample number) on the way out. A split of the input
// into a trimmed burst and a paced remainder, joined by concat, ran ~1 s further ahead than asked
// (2.3 s ahead of the wall clock for a 1.5 s burst) and let the audio fall 2 s behind the video in
// the fragments: a 2 s slate segment in a 1 s stream, and a 1 s hole in hls.js's buffer.
const burstThenRealTime = (input: string, output: string, burst: number, media: { kind: 'audio' } | { kind: 'video'; frameRate: number }): string => {
  const [setpts, realtime] = media.kind === 'audio' ? ['asetpts', 'arealtime'] : ['setpts', 'realtime'];
  const ownTimestamps = media.kind === 'audio' ? 'N/SR/TB' : `N/(${media.frameRate}*TB)`;
  if (burst === 0) return `${input}${realtime}${output}`;
  return `${input}${setpts}='max(PTS-${Math.round(burst * 1000) / 1000}/TB\\,0)',${realtime},${setpts}=${ownTimestamps}${output}`;
};

// Letterboxed into each rung's frame (a slate of another shape keeps its proportions), then
// repeated forever at the frame rate its input was read with.
const slateFilterGraph = (video: SlateVideoRung[], audio: { input: number; outputs: number } | null, burst: number, frameRate: number): string => {
  const chains: string[] = [];
  if (video.length > 0) {
    chains.push(`[0:v:0]split=${video.length}${video.map((_, index) => `[slate${index}]`).join('')}`);
    video.forEach(({ width, height }, index) => {
      const fitted = `[slate${index}]scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2,setsar=1,format=yuv420p,loop=loop=-1:size=1,`;
      chains.push(burstThenRealTime(fitted, `[video${index}]`, burst, { kind: 'video', frameRate }));
    });
  }
  if (audio) {
    const copies = Array.from({ length: audio.outputs }, (_, index) => `[audio${index}]`).join('');
    chains.push(burstThenRealTime(`[${audio.input}:a:0]`, `,asplit=${audio.outputs}${copies}`, burst, { kind: 'audio' }));
  }
  return chains.join(';');
};

const slateVideoArgs = (rung: SlateVideoRung, label: string, { preset, segmentSeconds }: SlateTranscodeInput): string[] => [
  '-map',
  label,
  ...liveX264Args({ preset, tune: 'stillimage,zerolatency', keyframes: `expr:gte(t,n_forced*${segmentSeconds})` }),
  '-crf',
  SLATE_CRF,
  '-maxrate',
  String(rung.maxRate),
  '-bufsize',
  String(rung.maxRate),
  '-video_track_timescale',
  String(LIVE_VIDEO_TIMESCALE),
];

/** One ffmpeg for the slate of every rung: output i (rung i) on `pipe:{3+i}`, as liveTranscodeArgs. */
export const liveSlateArgs = (input: SlateTranscodeInput): { args: string[]; outputFds: number[] } => {
  const { imagePath, rungs, sourceSize, frameRate, audio, fragmentSeconds } = input;
  if (rungs.length === 0) throw new Error('A slate needs at least one rung');
  if (!(frameRate > 0) || !(input.segmentSeconds > 0) || !(fragmentSeconds > 0) || !(input.burstSeconds >= 0)) {
    throw new RangeError('frame rate, segment and fragment durations must be positive, the burst not negative');
  }
  const video = videoRungsOf(rungs, sourceSize);
  const audioOnly = video.length === 0;
  if (audioOnly && !audio) throw new Error('An audio-only slate needs an audio layout');
  const audioInput = audioOnly ? 0 : 1;
  const args = ['-hide_banner', ...PROGRESS_ARGS];
  if (!audioOnly) args.push('-framerate', String(frameRate), '-i', imagePath);
  if (audio) args.push('-f', 'lavfi', '-i', `anullsrc=r=${audio.sampleRate}:cl=${audio.channels === 1 ? 'mono' : 'stereo'}`);
  args.push('-filter_complex', slateFilterGraph(video, audio && { input: audioInput, outputs: rungs.length }, input.burstSeconds, frameRate));
  const outputFds: number[] = [];
  rungs.forEach((_, rungIndex) => {
    const fd = FIRST_OUTPUT_FD + rungIndex;
    outputFds.push(fd);
    const videoIndex = video.findIndex((candidate) => candidate.rungIndex === rungIndex);
    if (videoIndex >= 0) args.push(...slateVideoArgs(video[videoIndex]!, `[video${videoIndex}]`, input));
    if (audio) args.push('-map', `[audio${rungIndex}]`, '-c:a', 'aac', '-b:a', AAC_BITRATE);
    args.push(...fragmentedMp4Args(fragmentSeconds, fd));
  });
  return { args, outputFds };
};
