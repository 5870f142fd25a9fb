import { getEnv } from '../../env';
import { ApiError } from '../../errors/api-error';
import { iframeHtml } from './embed-code';
import { findPlayerSource } from './find-player-source';
import type { AspectRatio } from './player-source';

// GET /oembed?url=…: the embed of a pasted player link (https://oembed.com, type "video"), sized
// within maxwidth/maxheight by the video's aspect ratio. The iframe keeps the link's query, so
// its parameters (autoplay, tokens …) carry over.

export const DEFAULT_EMBED_WIDTH = 640;

export type OembedRequest = { url: string; maxwidth?: number; maxheight?: number };

export type OembedVideo = {
  type: 'video';
  version: '1.0';
  provider_name: 'Keyframe';
  provider_url: string;
  title: string;
  html: string;
  width: number;
  height: number;
  thumbnail_url?: string;
  thumbnail_width?: number;
  thumbnail_height?: number;
};

const notPlayerLink = () => new ApiError('not_found', 'The url is not a link to a video on this server’s player');

/** The playback ID of a player page link on PLAYER_URL; null for anything else. */
export const playbackIdOfPlayerLink = (link: string, playerUrl: string): string | null => {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  const player = new URL(playerUrl);
  if (url.origin !== player.origin) return null;
  const prefix = `${player.pathname.replace(/\/+$/, '')}/player/`;
  if (!url.pathname.startsWith(prefix)) return null;
  const id = url.pathname.slice(prefix.length);
  return /^[0-9A-Za-z]+$/.test(id) ? id : null;
};

/** The largest size within the limits (640 wide by default) with the video's aspect ratio. */
export const embedSize = (ratio: AspectRatio, maxwidth?: number, maxheight?: number): { width: number; height: number } => {
  let width = Math.min(DEFAULT_EMBED_WIDTH, maxwidth ?? Infinity);
  let height = Math.round((width * ratio.height) / ratio.width);
  if (maxheight !== undefined && height > maxheight) {
    height = maxheight;
    width = Math.round((height * ratio.width) / ratio.height);
  }
  return { width: Math.max(1, width), height: Math.max(1, height) };
};

export const oembedFor = async ({ url, maxwidth, maxheight }: OembedRequest): Promise<OembedVideo> => {
  const { playerUrl, streamUrl } = getEnv();
  const playbackId = playbackIdOfPlayerLink(url, playerUrl);
  const source = playbackId ? await findPlayerSource(playbackId) : null;
  if (!playbackId || !source) throw notPlayerLink();
  const { width, height } = embedSize(source.aspectRatio, maxwidth, maxheight);
  const title = source.title ?? 'Video';
  const video: OembedVideo = {
    type: 'video',
    version: '1.0',
    provider_name: 'Keyframe',
    provider_url: playerUrl,
    title,
    html: iframeHtml({ url: new URL(url).href, aspectRatio: source.aspectRatio, title }),
    width,
    height,
  };
  // A signed video's thumbnail needs a token of its own, and its size is then the token's to say.
  if (source.signed || source.kind !== 'asset') return video;
  return {
    ...video,
    thumbnail_url: `${streamUrl.replace(/\/+$/, '')}/${playbackId}/thumbnail.jpg?width=${width}&height=${height}`,
    thumbnail_width: width,
    thumbnail_height: height,
  };
};
