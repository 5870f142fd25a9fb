import { describe, expect, test } from 'vitest';
import { MAX_METADATA, oembedQuerySchema, parsePlayerParams } from './player-params';

const parse = (query: string) => parsePlayerParams(new URLSearchParams(query));
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

describe('parsePlayerParams', () => {
  test('nothing given: every switch off, nothing set', () => {
    expect(parse('')).toEqual({ muted: false, loop: false, defaultHiddenCaptions: false, disableTracking: false, metadata: {} });
  });

  test('booleans are on when present or "true", off when absent or "false"', () => {
    expect(parse('muted').muted).toBe(true);
    expect(parse('muted=true').muted).toBe(true);
    expect(parse('muted=false').muted).toBe(false);
    expect(parse('loop&default-hidden-captions=').loop).toBe(true);
    expect(parse('loop&default-hidden-captions=').defaultHiddenCaptions).toBe(true);
    expect(parse('disable-mux-data').disableTracking).toBe(true);
    expect(parse('disable-tracking=true').disableTracking).toBe(true);
    expect(parse('disable-tracking=false').disableTracking).toBe(false);
  });

  test('autoplay: bare or true, muted, any; false and nonsense are off', () => {
    expect(parse('autoplay').autoplay).toBe(true);
    expect(parse('autoplay=true').autoplay).toBe(true);
    expect(parse('autoplay=muted').autoplay).toBe('muted');
    expect(parse('autoplay=any').autoplay).toBe('any');
    expect(parse('autoplay=false').autoplay).toBeUndefined();
    expect(parse('autoplay=loud').autoplay).toBeUndefined();
  });

  test('times, colours and resolutions are validated; invalid values are dropped', () => {
    expect(parse('start-time=12.5').startTime).toBe(12.5);
    expect(parse('start-time=-1').startTime).toBeUndefined();
    expect(parse('start-time=abc').startTime).toBeUndefined();
    expect(parse('poster-time=3').thumbnailTime).toBe(3);
    expect(parse('thumbnail-time=4').thumbnailTime).toBe(4);
    expect(parse('accent-color=%23fa50b5').accentColor).toBe('#fa50b5');
    expect(parse('primary-color=rgb(1,2,3)').primaryColor).toBe('rgb(1,2,3)');
    expect(parse('accent-color=red;background:url(x)').accentColor).toBeUndefined();
    expect(parse('max-resolution=720p&min-resolution=480p')).toMatchObject({ maxResolution: '720p', minResolution: '480p' });
    expect(parse('max-resolution=719p').maxResolution).toBeUndefined();
  });

  test('tokens must look like JWTs', () => {
    expect(parse(`playback-token=${JWT}&thumbnail-token=${JWT}&storyboard-token=${JWT}`)).toMatchObject({
      playbackToken: JWT,
      thumbnailToken: JWT,
      storyboardToken: JWT,
    });
    expect(parse('playback-token=not-a-jwt').playbackToken).toBeUndefined();
    expect(parse('playback-token="><script>').playbackToken).toBeUndefined();
  });

  test('title or video-title; metadata-* kept by name, bounded; unknown parameters ignored', () => {
    expect(parse('video-title=Hi').title).toBe('Hi');
    expect(parse('title=A&video-title=B').title).toBe('A');
    const parsed = parse('metadata-video-id=v1&metadata-viewer-user-id=u&metadata-=x&metadata-Bad=y&utm_source=news&player=mux-player');
    expect(parsed.metadata).toEqual({ 'metadata-video-id': 'v1', 'metadata-viewer-user-id': 'u' });
    expect(Object.keys(parsed)).not.toContain('utm_source');
    const many = Array.from({ length: MAX_METADATA + 5 }, (_, index) => `metadata-custom-${index}=x`).join('&');
    expect(Object.keys(parse(many).metadata)).toHaveLength(MAX_METADATA);
  });
});

describe('oembedQuerySchema', () => {
  test('url required, sizes positive integers, format json by default', () => {
    expect(oembedQuerySchema.parse({ url: 'http://x/player/a', maxwidth: '300' })).toEqual({ url: 'http://x/player/a', maxwidth: 300, format: 'json' });
    expect(oembedQuerySchema.safeParse({}).success).toBe(false);
    expect(oembedQuerySchema.safeParse({ url: 'u', maxwidth: '0' }).success).toBe(false);
    expect(oembedQuerySchema.safeParse({ url: 'u', format: 'yaml' }).success).toBe(false);
  });
});
