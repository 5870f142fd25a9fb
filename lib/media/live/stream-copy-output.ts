// The output of an ffmpeg that passes a live stream on unchanged (the SRT relay into the RTMP
// server, a simulcast restream): its first video and audio, copied, in the container the
// destination's protocol carries — MPEG-TS over srt://, FLV over rtmp(s)://.

export const streamCopyOutputArgs = (url: string): string[] => {
  const isSrt = url.toLowerCase().startsWith('srt:');
  return [
    '-map',
    '0:v:0?',
    '-map',
    '0:a:0?',
    '-c',
    'copy',
    '-f',
    isSrt ? 'mpegts' : 'flv',
    // A live FLV has no duration or size to go back and write.
    ...(isSrt ? [] : ['-flvflags', 'no_duration_filesize']),
    url,
  ];
};
