import { verifyPlaybackToken } from '../../auth/playback-token';
import { getEnv } from '../../env';
import { parsePlayerParams } from '../../schemas/player-params';
import { findSigningPublicKey } from '../signing-keys/find-signing-public-key';
import { playerPageUrl } from './embed-code';
import { findPlayerSource } from './find-player-source';
import { muxPlayerAttributes } from './player-attributes';
import { renderPlayerMessage, renderPlayerPage } from './player-html';
import { playerScriptUrl } from './player-script';

// GET /player/{playback_id}: the page, or a message in its place when there is nothing to play.
// A signed ID's playback token is checked here with the playback host's own verifier, so a missing,
// expired or mistyped token reads as a sentence in the frame rather than mux-player's generic
// network error. Thumbnail and storyboard tokens are not: without them only the poster or the
// previews are missing.

/** Who may keep the page: anyone (`public`, it depends on the URL alone), or no one. */
export type PlayerPageCaching = 'public' | 'none';

export type PlayerPageReply = { status: number; html: string; caching: PlayerPageCaching };

const message = (status: number, heading: string, detail: string, caching: PlayerPageCaching = 'none'): PlayerPageReply => ({
  status,
  html: renderPlayerMessage({ heading, detail }),
  caching,
});

export const oembedDiscoveryUrl = (playbackId: string): string =>
  `${getEnv().playerUrl.replace(/\/+$/, '')}/oembed?format=json&url=${encodeURIComponent(playerPageUrl(playbackId))}`;

export const playerPageFor = async (playbackId: string, query: URLSearchParams): Promise<PlayerPageReply> => {
  const source = await findPlayerSource(playbackId);
  if (!source) return message(404, 'Video not found', 'This player link does not point to a video on this server. Check the playback ID in the link.', 'public');
  if (source.status === 'errored') return message(200, 'This video cannot be played', 'The video could not be processed.');
  if (source.status === 'preparing') return message(200, 'This video is not ready yet', 'It is still being processed. Reload the page in a moment.');
  const params = parsePlayerParams(query);
  if (source.signed) {
    if (!params.playbackToken) {
      return message(
        200,
        'This video needs a signed playback token',
        'Its playback ID is signed: add ?playback-token=<JWT> (and thumbnail-token, storyboard-token for the poster and previews) to the player link.',
        'public',
      );
    }
    const checked = await verifyPlaybackToken({ token: params.playbackToken, playbackId, audience: 'v', findPublicKey: findSigningPublicKey });
    if (!checked.ok) return message(403, 'This playback token does not open the video', `${checked.reason}.`);
  }
  const env = getEnv();
  const html = renderPlayerPage({
    title: params.title ?? source.title ?? 'Video',
    scriptUrl: await playerScriptUrl(),
    oembedUrl: oembedDiscoveryUrl(playbackId),
    attributes: muxPlayerAttributes(source, params, { streamUrl: env.streamUrl, collectorDomain: env.data.collectorDomain }),
  });
  // A signed page carries its token: no shared cache keeps it.
  return { status: 200, html, caching: source.signed ? 'none' : 'public' };
};
