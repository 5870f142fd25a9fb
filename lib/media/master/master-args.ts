import { sdrOutputTags, sourceColourOf, toSdrFilters, type SourceColour } from '../colour/sdr-conversion';
import type { MediaProbe } from '../ffprobe';
import { primaryAudio, primaryVideo } from '../media-summary';

// The master download ("mezzanine"): the kept source itself, rewrapped as MP4 when its codecs
// play from an MP4 (so nothing is lost and it takes seconds), else one high-quality encode.

const REMUXABLE_VIDEO = new Set(['h264', 'hevc']);
const REMUXABLE_AUDIO = new Set(['aac', 'mp3']);

// An encoded master is H.264 8-bit like the renditions, so an HDR source is converted to SDR for it
// (`sourceColour`); a remuxed one is the source's own stream, HDR included.
export type MasterPlan = { mode: 'remux' | 'encode'; extension: 'mp4' | 'm4a'; audioOnly: boolean; hevc: boolean; sourceColour?: SourceColour };

export const planMaster = (probe: MediaProbe): MasterPlan => {
  // Cover art in an audio file is not video (primaryVideo skips it): its master is audio only.
  const video = primaryVideo(probe);
  const audio = primaryAudio(probe);
  const audioOnly = video === null;
  const videoOk = video === null || REMUXABLE_VIDEO.has(video.codec);
  const audioOk = audio === null || REMUXABLE_AUDIO.has(audio.codec);
  const mode = videoOk && audioOk ? 'remux' : 'encode';
  const sourceColour = video && mode === 'encode' ? sourceColourOf(video) : null;
  return { mode, extension: audioOnly ? 'm4a' : 'mp4', audioOnly, hevc: video?.codec === 'hevc', ...(sourceColour && { sourceColour }) };
};

const sdrFilterArgs = (sourceColour: SourceColour | undefined): string[] => {
  const filters = toSdrFilters(sourceColour);
  return filters ? ['-vf', filters] : [];
};

/** ffmpeg arguments writing the master of `input` to `output` (an .mp4/.m4a path). */
export const buildMasterArgs = ({ input, output, plan }: { input: string; output: string; plan: MasterPlan }): string[] => {
  const maps = plan.audioOnly ? ['-map', '0:a:0'] : ['-map', '0:v:0', '-map', '0:a:0?'];
  const codecs =
    plan.mode === 'remux'
      ? // Apple players want HEVC in MP4 tagged hvc1.
        ['-c', 'copy', ...(plan.hevc ? ['-tag:v', 'hvc1'] : [])]
      : [
          ...(plan.audioOnly ? [] : [...sdrFilterArgs(plan.sourceColour), '-c:v', 'libx264', '-preset', 'medium', '-crf', '18', '-pix_fmt', 'yuv420p', ...sdrOutputTags(plan.sourceColour)]),
          '-c:a', 'aac', '-b:a', '256k',
        ];
  return [
    '-hide_banner', '-nostdin', '-v', 'error', '-y',
    '-i', input,
    ...maps,
    ...codecs,
    '-map_metadata', '-1',
    '-movflags', '+faststart',
    '-f', 'mp4',
    output,
  ];
};
