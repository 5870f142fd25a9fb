import { describe, expect, test } from 'vitest';
import { iframeHtml } from './embed-code';
import { embedSize, playbackIdOfPlayerLink } from './oembed';
import { aspectRatioOf } from './player-source';

const ID = 'a'.repeat(20) + 'B'.repeat(10);

describe('playbackIdOfPlayerLink', () => {
  test('only player links on the player origin', () => {
    expect(playbackIdOfPlayerLink(`https://p.example.com/player/${ID}?autoplay=muted`, 'https://p.example.com')).toBe(ID);
    expect(playbackIdOfPlayerLink(`https://p.example.com/base/player/${ID}`, 'https://p.example.com/base/')).toBe(ID);
    expect(playbackIdOfPlayerLink(`https://evil.example.com/player/${ID}`, 'https://p.example.com')).toBeNull();
    expect(playbackIdOfPlayerLink(`http://p.example.com/player/${ID}`, 'https://p.example.com')).toBeNull();
    expect(playbackIdOfPlayerLink(`https://p.example.com/${ID}.m3u8`, 'https://p.example.com')).toBeNull();
    expect(playbackIdOfPlayerLink(`https://p.example.com/player/${ID}/x`, 'https://p.example.com')).toBeNull();
    expect(playbackIdOfPlayerLink('not a url', 'https://p.example.com')).toBeNull();
  });
});

describe('embedSize', () => {
  test('640 wide by default, within maxwidth and maxheight, keeping the ratio', () => {
    expect(embedSize({ width: 16, height: 9 })).toEqual({ width: 640, height: 360 });
    expect(embedSize({ width: 16, height: 9 }, 320)).toEqual({ width: 320, height: 180 });
    expect(embedSize({ width: 16, height: 9 }, 2000)).toEqual({ width: 640, height: 360 });
    expect(embedSize({ width: 16, height: 9 }, 640, 180)).toEqual({ width: 320, height: 180 });
    expect(embedSize({ width: 9, height: 16 }, undefined, 400)).toEqual({ width: 225, height: 400 });
  });
});

describe('iframeHtml and aspect ratios', () => {
  test('the embed code of the reference, with the video’s ratio and an escaped title', () => {
    expect(iframeHtml({ url: `https://p.example.com/player/${ID}?a=1&b=2`, aspectRatio: aspectRatioOf('4:3'), title: 'A "b"' })).toBe(
      `<iframe src="https://p.example.com/player/${ID}?a=1&amp;b=2" title="A &quot;b&quot;" style="aspect-ratio:4/3;width:100%;border:0" ` +
        'allow="accelerometer; gyroscope; autoplay; encrypted-media; picture-in-picture;" allowfullscreen></iframe>',
    );
    expect(aspectRatioOf(null)).toEqual({ width: 16, height: 9 });
    expect(aspectRatioOf('0:9')).toEqual({ width: 16, height: 9 });
  });
});
