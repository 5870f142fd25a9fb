import type { EncodedLiveRung, LiveRung } from '../../lib/media/live/live-ladder';

// The peer a user would run instead of Keyframe's live packager: one plain ffmpeg that is itself
// the RTMP endpoint (`-listen 1`), reads the publisher in real time and writes the same ladder —
// the source passed through plus the encoded rungs Keyframe chose, with the same x264 settings
// (preset, zerolatency, no B-frames, keyframes where the source has them, the same rates) and the
// audio copied into every variant — as fMP4 HLS with ffmpeg's own hls muxer (2 s segments, as
// Keyframe's standard latency mode).

const PEER_SEGMENT_SECONDS = 2;

const encodeArgs = (rung: EncodedLiveRung, videoIndex: number, preset: string): string[] => {
  const at = (option: string) => `-${option}:v:${videoIndex}`;
  return [
    at('c'), 'libx264',
    at('preset'), preset,
    at('tune'), 'zerolatency',
    at('fps_mode'), 'passthrough',
    at('force_key_frames'), 'source',
    at('sc_threshold'), '0',
    at('x264-params'), 'keyint=infinite',
    at('bf'), '0',
    at('b'), String(rung.videoBitrate),
    at('maxrate'), String(rung.maxRate),
    at('bufsize'), String(rung.bufSize),
  ];
};

export const peerLadderArgs = ({ listenUrl, rungs, preset, outDir }: { listenUrl: string; rungs: LiveRung[]; preset: string; outDir: string }): string[] => {
  const encoded = rungs.filter((rung): rung is EncodedLiveRung => rung.kind === 'encode');
  const filter = [
    `[0:v:0]split=${encoded.length}${encoded.map((_, index) => `[split${index}]`).join('')}`,
    ...encoded.map((rung, index) => `[split${index}]scale=${rung.width}:${rung.height},format=yuv420p[video${index}]`),
  ].join(';');
  const maps: string[] = [];
  const codecs: string[] = [];
  rungs.forEach((rung, index) => {
    if (rung.kind === 'copy') {
      maps.push('-map', '0:v:0', '-map', '0:a:0');
      codecs.push(`-c:v:${index}`, 'copy');
    } else if (rung.kind === 'encode') {
      maps.push('-map', `[video${encoded.indexOf(rung)}]`, '-map', '0:a:0');
      codecs.push(...encodeArgs(rung, index, preset));
    }
  });
  return [
    '-hide_banner', '-nostdin', '-loglevel', 'error',
    '-listen', '1', '-i', listenUrl,
    ...(encoded.length > 0 ? ['-filter_complex', filter] : []),
    ...maps,
    ...codecs,
    '-c:a', 'copy',
    '-f', 'hls',
    '-hls_time', String(PEER_SEGMENT_SECONDS),
    '-hls_list_size', '15',
    '-hls_segment_type', 'fmp4',
    '-hls_flags', 'independent_segments+program_date_time',
    '-master_pl_name', 'master.m3u8',
    '-var_stream_map', rungs.map((_, index) => `v:${index},a:${index}`).join(' '),
    '-hls_segment_filename', `${outDir}/%v/%d.m4s`,
    `${outDir}/%v/playlist.m3u8`,
  ];
};

/** Where the peer writes variant `index`'s media playlist. */
export const peerPlaylistPath = (outDir: string, index: number): string => `${outDir}/${index}/playlist.m3u8`;
