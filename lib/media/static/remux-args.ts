// ffmpeg arguments that turn fragmented MP4s (a rung's init + segments, the audio track's) into
// one progressive file: streams copied, not re-encoded; the index (moov) moved before the media
// data (faststart), so a browser can start playing and seeking before the whole file is fetched.

export const buildStaticRemuxArgs = ({
  videoPath,
  audioPath,
  outputPath,
}: {
  videoPath: string | null;
  audioPath: string | null;
  outputPath: string;
}): string[] => {
  if (!videoPath && !audioPath) throw new Error('a static rendition needs a video or an audio input');
  const inputs = [videoPath, audioPath].filter((input): input is string => input !== null);
  const maps = videoPath ? ['-map', '0:v:0', ...(audioPath ? ['-map', '1:a:0'] : [])] : ['-map', '0:a:0'];
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    ...inputs.flatMap((input) => ['-i', input]),
    ...maps,
    '-c',
    'copy',
    // Nothing of the encoder's tags or times: the same segments always remux to the same bytes.
    '-map_metadata',
    '-1',
    '-fflags',
    '+bitexact',
    '-movflags',
    '+faststart',
    // `ipod` is ffmpeg's MP4 muxer with the M4A brand, which audio players look for.
    '-f',
    videoPath ? 'mp4' : 'ipod',
    '-y',
    outputPath,
  ];
};
