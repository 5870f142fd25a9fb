// A clip's own source: the range cut from its source asset's kept source file, decoded from the
// exact start (the input seek lands on the keyframe before and ffmpeg drops the frames before
// `start`, so the first frame is the one at `start`), re-encoded to a near-lossless intermediate
// that then goes through the normal ingest. x264 CRF 16 `veryfast` keeps the generation loss below
// what the HLS ladder encodes lose anyway, at a few times real time on one core; AAC 256k likewise.

// `highDynamicRange`: the source is HDR or wide-gamut (see sdr-conversion.ts). Its clip keeps 10 bits
// and the source's colour tags, so the clip asset is converted to SDR from the source's own values,
// as the source asset is, rather than from an 8-bit cut of them (banding in skies and shadows).
export type ClipCut = { input: string; output: string; startSeconds: number; endSeconds: number; hasVideo: boolean; hasAudio: boolean; highDynamicRange?: boolean };

const seconds = (value: number) => value.toFixed(6);

export const buildClipArgs = ({ input, output, startSeconds, endSeconds, hasVideo, hasAudio, highDynamicRange = false }: ClipCut): string[] => [
  '-hide_banner', '-nostdin', '-v', 'error', '-y',
  // Input seeking with re-encoding is frame-accurate (-accurate_seek is the default).
  '-ss', seconds(startSeconds),
  '-i', input,
  '-t', seconds(endSeconds - startSeconds),
  ...(hasVideo ? ['-map', '0:v:0', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '16', '-pix_fmt', highDynamicRange ? 'yuv420p10le' : 'yuv420p'] : []),
  ...(hasAudio ? ['-map', '0:a:0', '-c:a', 'aac', '-b:a', '256k'] : []),
  // No -avoid_negative_ts: with input seeking both streams already start at 0 (the default keeps
  // the AAC priming in an edit list), and shifting them made the video start 80 ms late.
  '-map_metadata', '-1',
  '-movflags', '+faststart',
  '-f', 'mp4',
  output,
];
