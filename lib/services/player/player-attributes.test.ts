import { describe, expect, test } from 'vitest';
import { parsePlayerParams } from '../../schemas/player-params';
import { muxPlayerAttributes } from './player-attributes';
import { renderPlayerMessage, renderPlayerPage } from './player-html';
import type { PlayerSource } from './player-source';

const ID = 'a'.repeat(20) + 'B'.repeat(10);
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
const ENDPOINTS = { streamUrl: 'https://media.example.com/', collectorDomain: 'localhost:3000' };
const asset: PlayerSource = { playbackId: ID, kind: 'asset', signed: false, title: 'My <video> "one"', aspectRatio: { width: 16, height: 9 }, status: 'ready' };

const attributesOf = (source: PlayerSource, query = '') =>
  Object.fromEntries(muxPlayerAttributes(source, parsePlayerParams(new URLSearchParams(query)), ENDPOINTS));

describe('muxPlayerAttributes', () => {
  test('public asset: explicit src, poster and storyboard, Data to the collector, title from meta', () => {
    expect(attributesOf(asset)).toEqual({
      src: `https://media.example.com/${ID}.m3u8`,
      'stream-type': 'on-demand',
      crossorigin: '',
      poster: `https://media.example.com/${ID}/thumbnail.webp`,
      'storyboard-src': `https://media.example.com/${ID}/storyboard.vtt?format=webp`,
      title: 'My <video> "one"',
      'env-key': 'keyframe',
      'beacon-collection-domain': 'localhost:3000',
      'metadata-video-id': ID,
      'metadata-video-title': 'My <video> "one"',
      'metadata-player-name': 'keyframe-player-page',
    });
  });

  test('public: resolution limits go on the stream URL, start-time sets the poster time, parameters map', () => {
    const attributes = attributesOf(asset, 'max-resolution=720p&start-time=4&autoplay=muted&muted&loop&accent-color=%23fa50b5&metadata-video-title=T');
    expect(attributes.src).toBe(`https://media.example.com/${ID}.m3u8?max_resolution=720p`);
    expect(attributes.poster).toBe(`https://media.example.com/${ID}/thumbnail.webp?time=4`);
    expect(attributes).toMatchObject({ autoplay: 'muted', muted: true, loop: true, 'start-time': '4', 'accent-color': '#fa50b5', 'metadata-video-title': 'T' });
    expect(attributesOf(asset, 'autoplay').autoplay).toBe(true);
  });

  test('signed: the tokens go on the URLs, and nothing else; no token, no poster or storyboard', () => {
    const signed = { ...asset, signed: true };
    const all = attributesOf(signed, `playback-token=${JWT}&thumbnail-token=${JWT}&storyboard-token=${JWT}&max-resolution=720p&start-time=3`);
    expect(all.src).toBe(`https://media.example.com/${ID}.m3u8?token=${JWT}`);
    expect(all.poster).toBe(`https://media.example.com/${ID}/thumbnail.webp?token=${JWT}`);
    expect(all['storyboard-src']).toBe(`https://media.example.com/${ID}/storyboard.vtt?format=webp&token=${JWT}`);
    expect(Object.keys(all)).not.toContain('playback-token');
    expect(Object.keys(all)).not.toContain('storyboard-token');
    const videoOnly = attributesOf(signed, `playback-token=${JWT}`);
    expect(videoOnly.poster).toBeUndefined();
    expect(videoOnly['storyboard-src']).toBeUndefined();
  });

  test('live streams: stream-type live, no storyboard or poster', () => {
    const live = attributesOf({ ...asset, kind: 'live_stream', title: null });
    expect(live['stream-type']).toBe('live');
    expect(live['storyboard-src']).toBeUndefined();
    expect(live.poster).toBeUndefined();
    expect(live.title).toBeUndefined();
  });

  test('disable-tracking: no collector, no env key, no metadata', () => {
    const attributes = attributesOf(asset, 'disable-mux-data&metadata-video-id=x');
    expect(attributes['disable-tracking']).toBe(true);
    expect(Object.keys(attributes).filter((name) => name.startsWith('metadata-') || name === 'env-key' || name.startsWith('beacon'))).toEqual([]);
  });
});

describe('player HTML', () => {
  test('values are escaped in attributes and text', () => {
    const html = renderPlayerPage({
      title: 'A <b>"quoted"</b> & \'single\'',
      scriptUrl: '/player/mux-player.js?v=abc',
      oembedUrl: 'https://p.example/oembed?format=json&url=x',
      attributes: muxPlayerAttributes(asset, parsePlayerParams(new URLSearchParams('title=%22%3E%3Cscript%3Ealert(1)%3C/script%3E&muted')), ENDPOINTS),
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<b>');
    expect(html).toContain('<title>A &lt;b&gt;&quot;quoted&quot;&lt;/b&gt; &amp; &#39;single&#39;</title>');
    expect(html).toContain(' title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(html).toContain('href="https://p.example/oembed?format=json&amp;url=x"');
    expect(html).toMatch(/<mux-player src="[^"]+" stream-type="on-demand" crossorigin=""[^>]* muted><\/mux-player>/);
    expect(html).toContain('<script src="/player/mux-player.js?v=abc" defer></script>');
  });

  test('a message page has the message and no player', () => {
    const html = renderPlayerMessage({ heading: 'This video needs a signed playback token', detail: 'add ?playback-token=<JWT>' });
    expect(html).toContain('<h1>This video needs a signed playback token</h1>');
    expect(html).toContain('add ?playback-token=&lt;JWT&gt;');
    expect(html).not.toContain('<mux-player');
    expect(html).not.toContain('<script');
  });
});
