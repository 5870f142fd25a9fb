import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { hlsFileOfAssetsPath, initSegmentPath, mediaSegmentPath, renditionCompletePath } from './asset-files';

describe('HLS files of an asset', () => {
  const dataDir = path.join('/', 'data');
  const belowAssets = (filePath: string) => path.relative(path.join(dataDir, 'assets'), filePath);

  test('laid out as hls/<rendition>/init.mp4 and <index>.m4s', () => {
    expect(initSegmentPath(dataDir, 'a1', '720p')).toBe(path.join(dataDir, 'assets', 'a1', 'hls', '720p', 'init.mp4'));
    expect(mediaSegmentPath(dataDir, 'a1', 'audio', 3)).toBe(path.join(dataDir, 'assets', 'a1', 'hls', 'audio', '3.m4s'));
    expect(renditionCompletePath(dataDir, 'a1', '1440p')).toBe(path.join(dataDir, 'assets', 'a1', 'hls', '1440p', 'complete.json'));
  });

  test('a path below DATA_DIR/assets gives back its rendition and file', () => {
    expect(hlsFileOfAssetsPath(belowAssets(mediaSegmentPath(dataDir, 'a1', '720p', 12)))).toEqual({ rendition: '720p', file: '12.m4s' });
    expect(hlsFileOfAssetsPath('a1\\hls\\audio\\init.mp4')).toEqual({ rendition: 'audio', file: 'init.mp4' });
  });

  test('other files of an asset are no HLS files', () => {
    for (const relative of ['a1/source', 'a1/images/thumb.jpg', 'a1/hls/720p', 'a1/hls/720p/x/1.m4s', '/hls/720p/1.m4s', 'a1/static/720p/1.m4s']) {
      expect(hlsFileOfAssetsPath(relative)).toBeNull();
    }
  });
});
