import { describe, expect, test } from 'vitest';
import {
  buildAudioTrackArgs,
  buildInitSegmentArgs,
  buildMultiRungSegmentArgs,
  buildVideoSegmentArgs,
  MULTI_RUNG_FIRST_FD,
  multiRungOutputFd,
} from './encode-args';
import { overlaySettingsSchema } from '../../schemas/overlay-settings';
import { buildLadder } from './ladder';

const [rung] = buildLadder({ display: { width: 1280, height: 720 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' }).slice(-1);

const valueAfter = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

describe('buildVideoSegmentArgs', () => {
  const args = buildVideoSegmentArgs({ inputPath: '/data/source', rung: rung!, seekSeconds: 3.983333, durationSeconds: 4 });

  test('input seek before -i, exact cut by the trim filter, first video stream only', () => {
    expect(args.indexOf('-ss')).toBeLessThan(args.indexOf('-i'));
    expect(valueAfter(args, '-ss')).toBe('3.983333');
    expect(valueAfter(args, '-t')).toBe('4.066667');
    expect(valueAfter(args, '-map')).toBe('0:v:0');
    expect(args).toContain('-an');
  });

  test('scales to the rung, H.264 High at its level, no B-frames, fixed 2 s GOP, no scene cuts', () => {
    expect(valueAfter(args, '-vf')).toBe('trim=end=4.000000,scale=1280:720:flags=bicubic,format=yuv420p');
    expect(valueAfter(args, '-c:v')).toBe('libx264');
    expect(valueAfter(args, '-profile:v')).toBe('high');
    expect(valueAfter(args, '-level:v')).toBe('3.1');
    expect(valueAfter(args, '-bf')).toBe('0');
    expect(valueAfter(args, '-g')).toBe('60');
    expect(valueAfter(args, '-sc_threshold')).toBe('0');
  });

  test('capped CRF: the tier and preset quality target under a VBV cap of 0.9 × nominal with half a second of buffer', () => {
    expect(valueAfter(args, '-crf')).toBe('21.5');
    expect(valueAfter(args, '-maxrate')).toBe('2250000');
    expect(valueAfter(args, '-bufsize')).toBe('1125000');
    expect(valueAfter(args, '-rc_init_occupancy')).toBe('562500');
    expect(args).not.toContain('-b:v');
  });

  test('a rung of a plan made before capped CRF keeps its average bitrate (its segments stay byte-identical)', () => {
    const older = { ...rung!, rateControl: undefined, maxBitrate: 3_750_000 };
    const olderArgs = buildVideoSegmentArgs({ inputPath: '/data/source', rung: older, seekSeconds: 3.983333, durationSeconds: 4 });
    expect(valueAfter(olderArgs, '-b:v')).toBe('2500000');
    expect(valueAfter(olderArgs, '-maxrate')).toBe('3750000');
    expect(valueAfter(olderArgs, '-bufsize')).toBe('5000000');
    expect(olderArgs).not.toContain('-crf');
    expect(olderArgs).not.toContain('-rc_init_occupancy');
    expect(valueAfter(olderArgs, '-threads')).toBe('2');
    expect(valueAfter(olderArgs, '-x264-params')).toBe('sliced-threads=1');
  });

  test('fragmented MP4 on stdout with a 90 kHz timescale', () => {
    expect(valueAfter(args, '-video_track_timescale')).toBe('90000');
    expect(valueAfter(args, '-enc_time_base:v')).toBe('1/90000');
    expect(valueAfter(args, '-fps_mode')).toBe('passthrough');
    expect(valueAfter(args, '-movflags')).toBe('+frag_keyframe+empty_moov+default_base_moof');
    expect(args.at(-1)).toBe('pipe:1');
  });

  test('720p and 1080p use a faster preset than the smaller rungs; background rungs do not', () => {
    expect(valueAfter(args, '-preset')).toBe('superfast');
    const small = { ...rung!, width: 960, height: 540 };
    expect(valueAfter(buildVideoSegmentArgs({ inputPath: 'x', rung: small, seekSeconds: 0, durationSeconds: 2 }), '-preset')).toBe('veryfast');
    const uhd = { ...rung!, width: 3840, height: 2160, isBackground: true };
    expect(valueAfter(buildVideoSegmentArgs({ inputPath: 'x', rung: uhd, seekSeconds: 0, durationSeconds: 2 }), '-preset')).toBe('veryfast');
  });

  test('with a keyframe lookahead: a plain seek past the cut, and the trim drops what precedes it', () => {
    const ahead = buildVideoSegmentArgs({ inputPath: 'x', rung: rung!, seekSeconds: 3.983333, durationSeconds: 4, keyframeLookaheadSeconds: 0.025 });
    expect(ahead.indexOf('-noaccurate_seek')).toBeLessThan(ahead.indexOf('-ss'));
    expect(valueAfter(ahead, '-ss')).toBe('4.008333');
    expect(valueAfter(ahead, '-t')).toBe('4.066667');
    expect(valueAfter(ahead, '-vf')).toBe('trim=start=-0.025000:end=3.975000,setpts=PTS-STARTPTS,scale=1280:720:flags=bicubic,format=yuv420p');
    expect(args).not.toContain('-noaccurate_seek');
  });

  test('one x264 thread, whatever the machine: the same bytes on every run and every box, also where VBV decides', () => {
    expect(valueAfter(args, '-threads')).toBe('1');
    expect(args).not.toContain('-x264-params');
    expect(args.indexOf('-threads')).toBeGreaterThan(args.indexOf('-c:v'));
  });

  test('no library versions in the output (bitexact muxing)', () => {
    expect(valueAfter(args, '-fflags')).toBe('+bitexact');
    expect(args.indexOf('-fflags')).toBeGreaterThan(args.indexOf('-i'));
  });

  test('the first segment does not seek', () => {
    expect(buildVideoSegmentArgs({ inputPath: 'x', rung: rung!, seekSeconds: 0, durationSeconds: 2 })).not.toContain('-ss');
  });
});

describe('buildInitSegmentArgs', () => {
  test('the segment arguments from the start, stopped after one frame', () => {
    const args = buildInitSegmentArgs({ inputPath: '/data/source', rung: rung! });
    expect(args).not.toContain('-ss');
    expect(valueAfter(args, '-frames:v')).toBe('1');
    expect(args.indexOf('-frames:v')).toBeLessThan(args.indexOf('-f'));
    const segment = buildVideoSegmentArgs({ inputPath: '/data/source', rung: rung!, seekSeconds: 0, durationSeconds: 4 });
    for (const flag of ['-preset', '-profile:v', '-level:v', '-b:v', '-maxrate', '-bufsize', '-g', '-threads', '-x264-params', '-fflags', '-video_track_timescale', '-movflags']) {
      expect(valueAfter(args, flag)).toBe(valueAfter(segment, flag));
    }
  });
});

describe('buildAudioTrackArgs', () => {
  const args = buildAudioTrackArgs({ inputPath: '/data/source', durationSeconds: 10 });
  test('one continuous AAC-LC stereo 48 kHz encode of the first audio stream, in 4 s fragments', () => {
    expect(args).not.toContain('-ss');
    expect(valueAfter(args, '-map')).toBe('0:a:0');
    expect(valueAfter(args, '-c:a')).toBe('aac');
    expect(valueAfter(args, '-ac')).toBe('2');
    expect(valueAfter(args, '-b:a')).toBe('128k');
    expect(valueAfter(args, '-ar')).toBe('48000');
    expect(valueAfter(args, '-frag_duration')).toBe('4000000');
    expect(valueAfter(args, '-af')).toBe('aresample=48000,asetpts=N/SR/TB');
    expect(valueAfter(args, '-movflags')).toContain('delay_moov');
  });

  test('no library version in the init segment (bitexact muxing)', () => {
    expect(valueAfter(args, '-fflags')).toBe('+bitexact');
  });

  test('channel layouts a file does not name are guessed up to 7.1, as an input option', () => {
    expect(valueAfter(args, '-guess_layout_max')).toBe('8');
    expect(args.indexOf('-guess_layout_max')).toBeLessThan(args.indexOf('-i'));
  });

  test('another audio stream of the source, in mono', () => {
    const mono = buildAudioTrackArgs({ inputPath: '/data/source', durationSeconds: 10, streamIndex: 2, channels: 1 });
    expect(valueAfter(mono, '-map')).toBe('0:a:2');
    expect(valueAfter(mono, '-ac')).toBe('1');
    expect(valueAfter(mono, '-b:a')).toBe('64k');
  });

  test('an added file is padded with silence to the duration and cut there', () => {
    const padded = buildAudioTrackArgs({ inputPath: '/data/track', durationSeconds: 12.5, padToDuration: true });
    expect(valueAfter(padded, '-af')).toBe('aresample=48000,asetpts=N/SR/TB,apad=whole_dur=12.500000');
    expect(valueAfter(padded, '-t')).toBe('12.500000');
    expect(args.indexOf('-t')).toBeGreaterThan(args.indexOf('-i'));
  });
});

describe('with watermarks', () => {
  const overlays = [
    {
      path: '/data/overlays/0.png',
      width: 400,
      height: 200,
      settings: overlaySettingsSchema.parse({ vertical_align: 'bottom', horizontal_align: 'right', width: '10%', opacity: '60%' }),
    },
  ];
  const args = buildVideoSegmentArgs({ inputPath: '/data/source', rung: rung!, seekSeconds: 3.983333, durationSeconds: 4, overlays });

  test('the image is a second input, after the seeked video and before the output options', () => {
    const inputs = args.flatMap((arg, index) => (arg === '-i' ? [args[index + 1]] : []));
    expect(inputs).toEqual(['/data/source', '/data/overlays/0.png']);
    expect(args.indexOf('-ss')).toBeLessThan(args.indexOf('-i'));
    expect(args.lastIndexOf('-i')).toBeLessThan(args.indexOf('-t'));
  });

  test('one filter graph: the same window and scale, then the watermark laid out for the rung, then yuv420p', () => {
    expect(args).not.toContain('-vf');
    expect(valueAfter(args, '-map')).toBe('[out]');
    expect(valueAfter(args, '-filter_complex')!.split(';')).toEqual([
      '[0:v:0]trim=end=4.000000,scale=1280:720:flags=bicubic,format=yuv420p[base]',
      '[1:v:0]format=rgba,scale=128:64:flags=bicubic,colorchannelmixer=aa=0.6[wm0]',
      '[base][wm0]overlay=x=1152:y=656:eof_action=repeat[wm0on]',
      '[wm0on]format=yuv420p[out]',
    ]);
  });

  test('the encoder settings do not change', () => {
    const plain = buildVideoSegmentArgs({ inputPath: '/data/source', rung: rung!, seekSeconds: 3.983333, durationSeconds: 4 });
    for (const flag of ['-t', '-preset', '-level:v', '-b:v', '-g', '-threads', '-x264-params', '-fps_mode', '-enc_time_base:v', '-movflags']) {
      expect(valueAfter(args, flag)).toBe(valueAfter(plain, flag));
    }
  });

  test('the init segment is made with the same graph', () => {
    const init = buildInitSegmentArgs({ inputPath: '/data/source', rung: rung!, overlays });
    expect(init).toContain('/data/overlays/0.png');
    expect(valueAfter(init, '-filter_complex')).toContain('overlay=x=1152:y=656');
  });
});

describe('buildMultiRungSegmentArgs', () => {
  const ladder = buildLadder({ display: { width: 1920, height: 1080 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });
  const [low, , middle, high] = ladder;
  const window = { seekSeconds: 3.983333, durationSeconds: 4, keyframeLookaheadSeconds: 0.025 };
  const outputs = [{ rung: low! }, { rung: middle! }, { rung: high! }];
  const args = buildMultiRungSegmentArgs({ inputPath: '/data/source', outputs, ...window });
  // The output options of each output: from the end of the previous target (or the graph) to its own.
  const targets = args.flatMap((arg, index) => (arg.startsWith('pipe:') ? [index] : []));
  const outputArgs = targets.map((end, k) => args.slice(k === 0 ? args.indexOf('-filter_complex') + 2 : targets[k - 1]! + 1, end + 1));

  test('output k goes to file descriptor 3 + k', () => {
    expect(MULTI_RUNG_FIRST_FD).toBe(3);
    expect([0, 1, 2].map(multiRungOutputFd)).toEqual([3, 4, 5]);
    expect(targets.map((index) => args[index])).toEqual(['pipe:3', 'pipe:4', 'pipe:5']);
    expect(args.at(-1)).toBe('pipe:5');
  });

  test('one input, seeked as the single-rung encode seeks it', () => {
    const inputs = args.flatMap((arg, index) => (arg === '-i' ? [args[index + 1]] : []));
    expect(inputs).toEqual(['/data/source']);
    const single = buildVideoSegmentArgs({ inputPath: '/data/source', rung: low!, ...window });
    expect(args.slice(0, args.indexOf('-i') + 2)).toEqual(single.slice(0, single.indexOf('-i') + 2));
  });

  test('trimmed once, split once, then scaled per rung; each output maps its own copy', () => {
    expect(args.filter((arg) => arg === '-filter_complex')).toHaveLength(1);
    expect(valueAfter(args, '-filter_complex')!.split(';')).toEqual([
      '[0:v:0]trim=start=-0.025000:end=3.975000,setpts=PTS-STARTPTS,split=3[copy0][copy1][copy2]',
      '[copy0]scale=480:270:flags=bicubic,format=yuv420p[rung0]',
      '[copy1]scale=960:540:flags=bicubic,format=yuv420p[rung1]',
      '[copy2]scale=1280:720:flags=bicubic,format=yuv420p[rung2]',
    ]);
    expect(outputArgs.map((output) => valueAfter(output, '-map'))).toEqual(['[rung0]', '[rung1]', '[rung2]']);
    expect(args).not.toContain('-vf');
  });

  test("each output has exactly the single-rung encode's output options, its preset included", () => {
    const custom = buildMultiRungSegmentArgs({ inputPath: 'x', outputs: [{ rung: low! }, { rung: high!, preset: 'ultrafast' }], seekSeconds: 0, durationSeconds: 2 });
    const customEnd = custom.indexOf('pipe:3');
    const second = custom.slice(customEnd + 1);
    const single = buildVideoSegmentArgs({ inputPath: 'x', rung: high!, preset: 'ultrafast', seekSeconds: 0, durationSeconds: 2 });
    const singleOutput = single.slice(single.indexOf('-t'));
    const withoutVideo = (options: string[]) => {
      const map = options.indexOf('-map');
      const rest = [...options.slice(0, map), ...options.slice(options.indexOf('-c:v'))];
      return rest.slice(0, -1); // the target
    };
    expect(withoutVideo(second)).toEqual(withoutVideo(singleOutput));
    expect(valueAfter(second, '-preset')).toBe('ultrafast');
    expect(valueAfter(custom.slice(0, customEnd), '-preset')).toBe('veryfast');
    outputArgs.forEach((output, k) => {
      const rung = outputs[k]!.rung;
      const own = buildVideoSegmentArgs({ inputPath: '/data/source', rung, ...window });
      expect(withoutVideo(output)).toEqual(withoutVideo(own.slice(own.indexOf('-t'))));
    });
  });

  test('watermark images are inputs after the video, numbered in output order, with labels of their own per rung', () => {
    const mark = (name: string) => ({ path: `/data/overlays/${name}.png`, width: 400, height: 200, settings: overlaySettingsSchema.parse({ vertical_align: 'bottom', width: '10%' }) });
    const marked = buildMultiRungSegmentArgs({
      inputPath: '/data/source',
      outputs: [{ rung: low!, overlays: [mark('a')] }, { rung: middle! }, { rung: high!, overlays: [mark('b'), mark('c')] }],
      seekSeconds: 0,
      durationSeconds: 2,
    });
    const inputs = marked.flatMap((arg, index) => (arg === '-i' ? [marked[index + 1]] : []));
    expect(inputs).toEqual(['/data/source', '/data/overlays/a.png', '/data/overlays/b.png', '/data/overlays/c.png']);
    expect(marked.lastIndexOf('-i')).toBeLessThan(marked.indexOf('-filter_complex'));
    expect(valueAfter(marked, '-filter_complex')!.split(';')).toEqual([
      '[0:v:0]trim=end=2.000000,split=3[copy0][copy1][copy2]',
      '[copy0]scale=480:270:flags=bicubic,format=yuv420p[r0base]',
      '[1:v:0]format=rgba,scale=48:24:flags=bicubic[r0wm0]',
      '[r0base][r0wm0]overlay=x=0:y=246:eof_action=repeat[r0wm0on]',
      '[r0wm0on]format=yuv420p[rung0]',
      '[copy1]scale=960:540:flags=bicubic,format=yuv420p[rung1]',
      '[copy2]scale=1280:720:flags=bicubic,format=yuv420p[r2base]',
      '[2:v:0]format=rgba,scale=128:64:flags=bicubic[r2wm0]',
      '[r2base][r2wm0]overlay=x=0:y=656:eof_action=repeat[r2wm0on]',
      '[3:v:0]format=rgba,scale=128:64:flags=bicubic[r2wm1]',
      '[r2wm0on][r2wm1]overlay=x=0:y=656:eof_action=repeat[r2wm1on]',
      '[r2wm1on]format=yuv420p[rung2]',
    ]);
  });

  test('the first segment does not seek; no outputs is an error', () => {
    expect(buildMultiRungSegmentArgs({ inputPath: 'x', outputs, seekSeconds: 0, durationSeconds: 2, keyframeLookaheadSeconds: 0.025 })).not.toContain('-ss');
    expect(() => buildMultiRungSegmentArgs({ inputPath: 'x', outputs: [], seekSeconds: 0, durationSeconds: 2 })).toThrow(RangeError);
  });
});
