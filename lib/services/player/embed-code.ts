import { getEnv } from '../../env';
import { escapeHtml } from './html';
import { DEFAULT_ASPECT_RATIO, type AspectRatio } from './player-source';

// The <iframe> that embeds the player page, as player.mux.com's embed code has it (reference §8.3).

const ALLOW = 'accelerometer; gyroscope; autoplay; encrypted-media; picture-in-picture;';

export const playerPageUrl = (playbackId: string): string => `${getEnv().playerUrl.replace(/\/+$/, '')}/player/${encodeURIComponent(playbackId)}`;

export const iframeHtml = ({ url, aspectRatio = DEFAULT_ASPECT_RATIO, title }: { url: string; aspectRatio?: AspectRatio; title?: string }): string =>
  `<iframe src="${escapeHtml(url)}"${title ? ` title="${escapeHtml(title)}"` : ''} ` +
  `style="aspect-ratio:${aspectRatio.width}/${aspectRatio.height};width:100%;border:0" allow="${ALLOW}" allowfullscreen></iframe>`;

/** The player page's URL and the HTML to paste into a site. */
export const embedCodeFor = (playbackId: string): { url: string; html: string } => {
  const url = playerPageUrl(playbackId);
  return { url, html: iframeHtml({ url }) };
};
