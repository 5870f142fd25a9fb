import { KEYFRAME_ENV_KEY } from '../../analytics/environment';
import type { PlayerParams } from '../../schemas/player-params';
import type { HtmlAttributes } from './html';
import type { PlayerSource } from './player-source';

// The <mux-player> attributes of the player page. Keyframe has no stream./image. host names for
// mux-player to derive URLs from, so `src`, `poster` and `storyboard-src` are given explicitly,
// with the page's tokens as `?token=` (reference §8.1): a signed ID's stream URL carries only its
// token, and without a thumbnail or storyboard token there is no poster or storyboard, as
// mux-player itself would do. Token attributes are not passed on: with a `storyboard-token`
// mux-player would ignore the explicit `storyboard-src`.

export type PlayerEndpoints = {
  /** Origin of the playback host (STREAM_URL). */
  streamUrl: string;
  /** mux-embed's beacon-collection-domain (DATA_COLLECTOR_DOMAIN). */
  collectorDomain: string;
};

export const PLAYER_NAME = 'keyframe-player-page';

const withQuery = (url: string, query: Record<string, string | undefined>): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, value);
  const encoded = search.toString();
  return encoded ? `${url}?${encoded}` : url;
};

export const mediaUrlsFor = (source: PlayerSource, params: PlayerParams, streamUrl: string) => {
  const base = `${streamUrl.replace(/\/+$/, '')}/${source.playbackId}`;
  const onDemand = source.kind === 'asset';
  if (source.signed) {
    return {
      src: withQuery(`${base}.m3u8`, { token: params.playbackToken }),
      poster: onDemand && params.thumbnailToken ? withQuery(`${base}/thumbnail.webp`, { token: params.thumbnailToken }) : null,
      storyboard:
        onDemand && params.storyboardToken ? withQuery(`${base}/storyboard.vtt`, { format: 'webp', token: params.storyboardToken }) : null,
    };
  }
  const posterTime = params.thumbnailTime ?? params.startTime;
  return {
    src: withQuery(`${base}.m3u8`, { max_resolution: params.maxResolution, min_resolution: params.minResolution }),
    poster: onDemand ? withQuery(`${base}/thumbnail.webp`, { time: posterTime === undefined ? undefined : String(posterTime) }) : null,
    storyboard: onDemand ? `${base}/storyboard.vtt?format=webp` : null,
  };
};

const metadataFor = (source: PlayerSource, params: PlayerParams, title: string | undefined): Record<string, string> => ({
  'metadata-video-id': source.playbackId,
  ...(title !== undefined && { 'metadata-video-title': title }),
  'metadata-player-name': PLAYER_NAME,
  ...params.metadata,
});

export const muxPlayerAttributes = (source: PlayerSource, params: PlayerParams, endpoints: PlayerEndpoints): HtmlAttributes => {
  const urls = mediaUrlsFor(source, params, endpoints.streamUrl);
  const title = params.title ?? source.title ?? undefined;
  const attributes: HtmlAttributes = [
    ['src', urls.src],
    ['stream-type', source.kind === 'live_stream' ? 'live' : 'on-demand'],
    ['crossorigin', ''],
  ];
  if (urls.poster) attributes.push(['poster', urls.poster]);
  if (urls.storyboard) attributes.push(['storyboard-src', urls.storyboard]);
  if (title !== undefined) attributes.push(['title', title]);
  if (params.disableTracking) attributes.push(['disable-tracking', true]);
  else {
    attributes.push(['env-key', KEYFRAME_ENV_KEY], ['beacon-collection-domain', endpoints.collectorDomain]);
    for (const [name, value] of Object.entries(metadataFor(source, params, title))) attributes.push([name, value]);
  }
  if (params.autoplay !== undefined) attributes.push(['autoplay', params.autoplay === true ? true : params.autoplay]);
  if (params.muted) attributes.push(['muted', true]);
  if (params.loop) attributes.push(['loop', true]);
  if (params.startTime !== undefined) attributes.push(['start-time', String(params.startTime)]);
  if (params.defaultHiddenCaptions) attributes.push(['default-hidden-captions', true]);
  if (params.accentColor) attributes.push(['accent-color', params.accentColor]);
  if (params.primaryColor) attributes.push(['primary-color', params.primaryColor]);
  if (params.secondaryColor) attributes.push(['secondary-color', params.secondaryColor]);
  return attributes;
};
