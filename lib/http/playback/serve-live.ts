import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerLive, type LiveAnswer, type LiveRequest } from '../../services/live/live-playback';
import type { LivePlaybackEntry } from '../../services/live/live-registry';
import type { PlaybackAccess } from '../../services/playback/resolve-playback';
import { isApiError } from '../api-error';
import { CONTENT_TYPES, immutableCacheControl, PLAYBACK_CORS_HEADERS, playlistCacheControl } from './playback-headers';
import { sendPlaybackError, sendUnexpectedPlaybackError } from './send-playback-reply';

// Live playlists and media, answered from the broadcast in memory (see lib/services/live). Each
// answer is whole in memory already, so it is written in one go; playlists of a running broadcast
// may be kept one second by a cache in front (enough to collapse a crowd of players onto one
// origin request), segments and parts for ever (they never change under their URL).

const cacheControlOf = (answer: LiveAnswer): string => {
  if (answer.kind !== 'playlist') return immutableCacheControl(answer.cacheability);
  if (!answer.changing) return playlistCacheControl(answer.cacheability);
  return `${answer.cacheability.scope}, max-age=1`;
};

export const serveLive = async ({
  playbackId,
  entry,
  liveRequest,
  query,
  access,
  request,
  response,
}: {
  playbackId: string;
  entry: LivePlaybackEntry;
  liveRequest: LiveRequest;
  query: URLSearchParams;
  access: PlaybackAccess;
  request: IncomingMessage;
  response: ServerResponse;
}): Promise<void> => {
  try {
    const answer = await answerLive({ playbackId, entry, request: liveRequest, query, access });
    if (response.destroyed) return;
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
    response.writeHead(200, {
      ...PLAYBACK_CORS_HEADERS,
      'content-type': answer.kind === 'playlist' ? CONTENT_TYPES.m3u8 : answer.kind === 'text' ? CONTENT_TYPES.vtt : CONTENT_TYPES.mp4,
      'content-length': body.length,
      'cache-control': cacheControlOf(answer),
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  } catch (error) {
    if (isApiError(error)) return sendPlaybackError(response, error);
    sendUnexpectedPlaybackError(response, error, { url: request.url }, 'live playback request failed');
  }
};
