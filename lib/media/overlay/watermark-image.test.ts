import { describe, expect, test } from 'vitest';
import { checkStillImageProbe, pngSize } from './watermark-image';

const checkWatermarkProbe = (stdout: string) => checkStillImageProbe(stdout, 'the watermark');

const probe = (stream: Record<string, unknown>, formatName: string, extra: Record<string, unknown>[] = []) =>
  JSON.stringify({ streams: [stream, ...extra], format: { format_name: formatName } });

describe('checkStillImageProbe', () => {
  test('PNG and JPEG stills are accepted with their size', () => {
    expect(checkWatermarkProbe(probe({ codec_type: 'video', codec_name: 'png', width: 64, height: 32 }, 'png_pipe'))).toEqual({
      ok: true,
      size: { width: 64, height: 32 },
    });
    expect(checkWatermarkProbe(probe({ codec_type: 'video', codec_name: 'mjpeg', width: 4096, height: 4096 }, 'jpeg_pipe')).ok).toBe(true);
  });

  test('anything else is not a PNG or JPEG image: unreadable, GIF, WebP, a video, an MJPEG video', () => {
    for (const stdout of [
      '',
      '{}',
      'not json',
      probe({ codec_type: 'video', codec_name: 'gif', width: 10, height: 10 }, 'gif'),
      probe({ codec_type: 'video', codec_name: 'webp', width: 10, height: 10 }, 'webp_pipe'),
      probe({ codec_type: 'video', codec_name: 'h264', width: 10, height: 10 }, 'mov,mp4,m4a,3gp,3g2,mj2'),
      probe({ codec_type: 'video', codec_name: 'mjpeg', width: 10, height: 10 }, 'avi'),
      probe({ codec_type: 'video', codec_name: 'png', width: 10, height: 10 }, 'png_pipe', [{ codec_type: 'audio' }]),
    ]) {
      expect(checkWatermarkProbe(stdout)).toEqual({ ok: false, reason: 'the watermark is not a PNG or JPEG image' });
    }
  });

  test('larger than 4096×4096 is refused, saying how large it is', () => {
    expect(checkWatermarkProbe(probe({ codec_type: 'video', codec_name: 'png', width: 4097, height: 10 }, 'png_pipe'))).toEqual({
      ok: false,
      reason: 'the watermark is 4097×10 pixels; at most 4096×4096 is accepted',
    });
  });
});

describe('pngSize', () => {
  const header = (width: number, height: number) => {
    const bytes = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
    bytes.writeUInt32BE(13, 8);
    bytes.write('IHDR', 12, 'latin1');
    bytes.writeUInt32BE(width, 16);
    bytes.writeUInt32BE(height, 20);
    return bytes;
  };
  test('reads the IHDR size', () => {
    expect(pngSize(header(640, 4096))).toEqual({ width: 640, height: 4096 });
  });
  test('null for anything that is not a PNG', () => {
    expect(pngSize(Buffer.from('hello world, this is not a png'))).toBeNull();
    expect(pngSize(header(1, 1).subarray(0, 20))).toBeNull();
  });
});
