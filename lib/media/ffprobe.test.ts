import { describe, expect, it } from 'vitest';
import { buildProbeArgs, parseProbeOutput } from './ffprobe';

// Trimmed from real ffprobe 5.1 output of an iPhone HEVC HLG portrait recording.
const iphonePortrait = {
  streams: [
    {
      index: 0,
      codec_name: 'hevc',
      profile: 'Main 10',
      codec_type: 'video',
      codec_tag_string: 'hvc1',
      width: 1920,
      height: 1080,
      coded_width: 1920,
      coded_height: 1088,
      pix_fmt: 'yuv420p10le',
      color_range: 'tv',
      color_space: 'bt2020nc',
      color_transfer: 'arib-std-b67',
      color_primaries: 'bt2020',
      r_frame_rate: '30000/1001',
      avg_frame_rate: '51600/1841',
      duration: '2.548333',
      bit_rate: '8413132',
      disposition: { default: 1, attached_pic: 0 },
      tags: { language: 'und', handler_name: 'Core Media Video' },
      side_data_list: [
        { side_data_type: 'DOVI configuration record', dv_profile: 8, dv_level: 4 },
        {
          side_data_type: 'Display Matrix',
          displaymatrix:
            '\n00000000:            0       65536           0\n00000001:       -65536           0           0\n00000002:     70778880           0  1073741824\n',
          rotation: -90,
        },
      ],
    },
    {
      index: 1,
      codec_name: 'aac',
      profile: 'LC',
      codec_type: 'audio',
      sample_rate: '44100',
      channels: 2,
      channel_layout: 'stereo',
      r_frame_rate: '0/0',
      avg_frame_rate: '0/0',
      duration: '2.548345',
      bit_rate: '140781',
      disposition: { default: 1, attached_pic: 0 },
      tags: { language: 'und', handler_name: 'Core Media Audio' },
    },
    { index: 2, codec_type: 'data', codec_tag_string: 'mebx', duration: '2.548333', bit_rate: '26', tags: { language: 'und' } },
    { index: 3, codec_type: 'data', codec_tag_string: 'mebx', duration: '2.548333', bit_rate: '21', tags: { language: 'und' } },
  ],
  format: {
    filename: 'iphone.mov',
    nb_streams: 4,
    format_name: 'mov,mp4,m4a,3gp,3g2,mj2',
    start_time: '0.000000',
    duration: '2.548333',
    size: '3277732',
    bit_rate: '10289807',
  },
};

// Audio track first, then the cover art, as ffmpeg writes an MP3 with an embedded picture.
const mp3WithCover = {
  streams: [
    {
      index: 0,
      codec_name: 'mp3',
      codec_type: 'audio',
      codec_tag_string: '[0][0][0][0]',
      sample_rate: '44100',
      channels: 2,
      channel_layout: 'stereo',
      r_frame_rate: '0/0',
      avg_frame_rate: '0/0',
      start_time: '0.025057',
      duration: '97.436735',
      bit_rate: '150357',
      disposition: { default: 0, attached_pic: 0 },
      tags: { encoder: 'LAME3.99r' },
    },
    {
      index: 1,
      codec_name: 'mjpeg',
      profile: 'Baseline',
      codec_type: 'video',
      width: 300,
      height: 300,
      sample_aspect_ratio: '1:1',
      pix_fmt: 'yuvj420p',
      r_frame_rate: '90000/1',
      avg_frame_rate: '0/0',
      duration: '97.436740',
      disposition: { default: 0, attached_pic: 1 },
      tags: { title: 'Album cover', comment: 'Cover (front)' },
    },
  ],
  format: {
    format_name: 'mp3',
    start_time: '0.025057',
    duration: '97.436735',
    size: '1831788',
    bit_rate: '150398',
  },
};

// Matroska style: stream durations/bitrates only as tags, N/A everywhere, anamorphic PAL DVD.
const mkvWithGaps = {
  streams: [
    {
      index: 0,
      codec_name: 'mpeg2video',
      codec_type: 'video',
      width: 720,
      height: 576,
      sample_aspect_ratio: '16:15',
      pix_fmt: 'yuv420p',
      r_frame_rate: '25/1',
      avg_frame_rate: '0/0',
      bit_rate: 'N/A',
      disposition: { attached_pic: 0 },
      tags: { DURATION: '00:01:02.500000000', BPS: '4000000' },
    },
    {
      index: 1,
      codec_name: 'ac3',
      codec_type: 'audio',
      sample_rate: 'N/A',
      channels: 6,
      channel_layout: '5.1(side)',
      tags: { language: 'fre', DURATION: '00:01:02.528000000' },
    },
    { index: 2, codec_name: 'subrip', codec_type: 'subtitle', tags: { language: 'eng' } },
  ],
  format: { format_name: 'matroska,webm', duration: 'N/A', size: 'N/A', bit_rate: 'N/A', start_time: 'N/A' },
};

describe('buildProbeArgs', () => {
  it('asks for JSON format + streams only, quietly', () => {
    const args = buildProbeArgs('/data/in put.mov');
    expect(args).toEqual(['-v', 'error', '-hide_banner', '-print_format', 'json', '-show_format', '-show_streams', '-i', '/data/in put.mov']);
    expect(args.join(' ')).not.toMatch(/packets|frames/);
  });
});

describe('parseProbeOutput', () => {
  it('normalises an iPhone portrait clip: -90 display matrix means 90° clockwise', () => {
    const probe = parseProbeOutput(iphonePortrait);
    expect(probe).toMatchObject({
      formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
      durationSeconds: 2.548333,
      sizeBytes: 3277732,
      bitRate: 10289807,
      startTimeSeconds: 0,
    });
    expect(probe.video).toHaveLength(1);
    const [video] = probe.video;
    expect(video).toEqual({
      index: 0,
      codec: 'hevc',
      profile: 'Main 10',
      pixelFormat: 'yuv420p10le',
      colorTransfer: 'arib-std-b67',
      colorPrimaries: 'bt2020',
      colorSpace: 'bt2020nc',
      codedWidth: 1920,
      codedHeight: 1080,
      rotation: 90,
      displayWidth: 1080,
      displayHeight: 1920,
      frameRate: 51600 / 1841,
      constantFrameRate: false,
      bitRate: 8413132,
      durationSeconds: 2.548333,
      isAttachedPicture: false,
    });
    expect(probe.audio).toEqual([
      { index: 1, codec: 'aac', channels: 2, channelLayout: 'stereo', sampleRate: 44100, bitRate: 140781, durationSeconds: 2.548345, language: null, title: null },
    ]);
  });

  it('maps a +90 (counter-clockwise) display matrix to 270 clockwise', () => {
    const stream = { ...iphonePortrait.streams[0], side_data_list: [{ side_data_type: 'Display Matrix', rotation: 90 }] };
    const [video] = parseProbeOutput({ streams: [stream], format: iphonePortrait.format }).video;
    expect(video?.rotation).toBe(270);
    expect([video?.displayWidth, video?.displayHeight]).toEqual([1080, 1920]);
  });

  it('handles 180° and the legacy clockwise tags.rotate', () => {
    const base = iphonePortrait.streams[0];
    const flipped = parseProbeOutput({ streams: [{ ...base, side_data_list: [{ side_data_type: 'Display Matrix', rotation: 180 }] }] });
    expect(flipped.video[0]).toMatchObject({ rotation: 180, displayWidth: 1920, displayHeight: 1080 });
    const legacy = parseProbeOutput({ streams: [{ ...base, side_data_list: undefined, tags: { rotate: '90' } }] });
    expect(legacy.video[0]).toMatchObject({ rotation: 90, displayWidth: 1080, displayHeight: 1920 });
    const unrotated = parseProbeOutput({ streams: [{ ...base, side_data_list: undefined, tags: {} }] });
    expect(unrotated.video[0]).toMatchObject({ rotation: 0, displayWidth: 1920, displayHeight: 1080 });
  });

  it('flags MP3 cover art as an attached picture and ignores its bogus 90000 fps', () => {
    const probe = parseProbeOutput(mp3WithCover);
    expect(probe.startTimeSeconds).toBeCloseTo(0.025057, 6);
    expect(probe.audio[0]).toMatchObject({ codec: 'mp3', channels: 2, sampleRate: 44100, bitRate: 150357, language: null });
    expect(probe.video).toHaveLength(1);
    expect(probe.video[0]).toMatchObject({ index: 1, codec: 'mjpeg', isAttachedPicture: true, frameRate: null, displayWidth: 300 });
  });

  it('calls a stream constant-frame-rate only when its average rate equals its base rate', () => {
    const withRates = (r_frame_rate: string, avg_frame_rate: string) =>
      parseProbeOutput({ streams: [{ index: 0, codec_type: 'video', codec_name: 'h264', width: 640, height: 360, r_frame_rate, avg_frame_rate }], format: {} })
        .video[0]?.constantFrameRate;
    expect(withRates('30/1', '30/1')).toBe(true);
    expect(withRates('30000/1001', '30000/1001')).toBe(true);
    expect(withRates('30000/1001', '51600/1841')).toBe(false);
    expect(withRates('25/1', '0/0')).toBe(false);
    expect(withRates('90000/1', '90000/1')).toBe(false);
  });

  it('survives N/A values, tag-only durations and anamorphic pixels; drops subtitles', () => {
    const probe = parseProbeOutput(mkvWithGaps);
    expect(probe.sizeBytes).toBeNull();
    expect(probe.bitRate).toBeNull();
    expect(probe.startTimeSeconds).toBe(0);
    // Falls back to the longest stream.
    expect(probe.durationSeconds).toBeCloseTo(62.528, 6);
    expect(probe.video[0]).toMatchObject({
      codec: 'mpeg2video',
      codedWidth: 720,
      codedHeight: 576,
      displayWidth: 768,
      displayHeight: 576,
      frameRate: 25,
      bitRate: 4_000_000,
      durationSeconds: 62.5,
    });
    expect(probe.audio).toEqual([
      { index: 1, codec: 'ac3', channels: 6, channelLayout: '5.1(side)', sampleRate: 0, bitRate: null, durationSeconds: 62.528, language: 'fre', title: null },
    ]);
  });

  it('returns an empty probe for output that is not ffprobe JSON', () => {
    for (const junk of [null, 'text', [], { streams: 'nope', format: 7 }]) {
      expect(parseProbeOutput(junk)).toEqual({
        formatName: 'unknown',
        probeScore: null,
        durationSeconds: null,
        sizeBytes: null,
        bitRate: null,
        startTimeSeconds: 0,
        video: [],
        audio: [],
      });
    }
  });
});
