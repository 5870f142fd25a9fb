import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlaybackAudience } from '../../auth/playback-token';
import { getEnv } from '../../env';
import { isSubtitlesRendition } from '../../media/names';
import { isAnimatedFormat, isStillFormat } from '../../schemas/image-params';
import { getAnimatedImage } from '../../services/images/get-animated-image';
import { getStoryboardImage } from '../../services/images/get-storyboard-image';
import { getStoryboardMetadata } from '../../services/images/get-storyboard-metadata';
import { getThumbnail } from '../../services/images/get-thumbnail';
import type { ImageFile, StoryboardText } from '../../services/images/image-file';
import { getMultivariantPlaylist, storedMultivariantPlaylist } from '../../services/playback/get-multivariant-playlist';
import { forgetMissingRenditionFile, getRenditionFile } from '../../services/playback/get-rendition-file';
import { getStaticRenditionFile } from '../../services/playback/get-static-rendition-file';
import { getRenditionPlaylist, storedRenditionPlaylist } from '../../services/playback/get-rendition-playlist';
import { peekPublicPlayback, type PlaybackAccess, type PlaybackText } from '../../services/playback/resolve-playback';
import { getSubtitlesPlaylist, getSubtitlesSegment } from '../../services/playback/subtitles-rendition';
import { getTextTrackFile } from '../../services/playback/text-track-files';
import { findLivePlayback } from '../../services/live/live-registry';
import { remoteBroadcastNodeUrl } from '../../services/live/remote-broadcast';
import type { LiveRequest } from '../../services/live/live-playback';
import { CACHEABLE_HEADER, cacheableValue } from '../edge/edge-protocol';
import { clientAddressOf, isFromPlaybackWorker, workerTakesFiles } from '../edge/from-playback-worker';
import { ApiError, isApiError, notFound } from '../api-error';
import { countHttpRequest, playbackRouteClass } from '../metrics/request-metrics';
import {
  CONTENT_TYPES,
  immutableCacheControl,
  staticFileCacheControl,
  PLAYBACK_PREFLIGHT_HEADERS,
  playlistCacheControl,
  redirectCacheControl,
  storyboardTextCacheControl,
} from './playback-headers';
import { downloadDisposition } from './download-disposition';
import { matchPlaybackPath, type ImageKind, type PlaybackPath } from '../serving/playback-paths';
import { matchMasterPath, serveMaster } from './serve-master';
import { isMissingFile, sendPlaybackError, sendUnexpectedPlaybackError, sendPlaybackReply, sendTextReply, type PlaybackReply } from './send-playback-reply';
import { forwardLive, isForwardedLive } from './forward-live';
import { serveLive } from './serve-live';

// The playback host, answered by the Node server before Next.js routing: playlists, segments and
// images, public or signed, with Mux's delivery status codes. Resolving a playback ID reads an
// in-memory record (see playback-records.ts), so a request for something already stored touches
// neither the framework nor the database; something not stored yet is encoded or generated here,
// and written by the same response writer.

type PlaybackRequest = {
  path: PlaybackPath;
  query: URLSearchParams;
  request: IncomingMessage;
  // Aborted when the client goes away: a just-in-time encode nobody waits for is released. Made
  // on demand (only an encode needs it), so a stored file costs no AbortController.
  viewer: () => AbortSignal;
};

const accessFor = ({ query, request }: PlaybackRequest, audience: PlaybackAudience): PlaybackAccess => ({
  // Mux's players send `token`; mux-node's playback helpers send `TOKEN`.
  token: query.get('token') ?? query.get('TOKEN'),
  proof: query.get('kfp'),
  audience,
  referrer: request.headers.referer ?? null,
  userAgent: request.headers['user-agent'] ?? null,
});

const playlistReply = (playlist: PlaybackText) => ({
  text: playlist.text,
  lastModified: playlist.lastModified,
  contentType: CONTENT_TYPES.m3u8,
  cacheControl: playlist.momentary ? 'no-store' : playlistCacheControl(playlist.cacheability),
});

const imageReply = (image: ImageFile | StoryboardText): PlaybackReply => {
  const contentType = CONTENT_TYPES[image.format];
  if ('path' in image) return { filePath: image.path, lastModified: image.lastModified, contentType, cacheControl: immutableCacheControl(image.cacheability) };
  return { text: image.text, lastModified: image.lastModified, contentType, cacheControl: storyboardTextCacheControl(image.cacheability) };
};

// The images under a playback ID, each with its token audience: thumbnail (t), animated (g),
// storyboard (s).
const imageFor = async (playback: PlaybackRequest, image: ImageKind, extension: string): Promise<ImageFile | StoryboardText> => {
  const params = { playbackId: playback.path.playbackId, query: Object.fromEntries(playback.query) };
  if (image === 'thumbnail' && isStillFormat(extension)) return getThumbnail({ ...params, format: extension, access: accessFor(playback, 't') });
  if (image === 'animated' && isAnimatedFormat(extension)) {
    return getAnimatedImage({ ...params, format: extension, access: accessFor(playback, 'g') });
  }
  if (image === 'storyboard' && isStillFormat(extension)) {
    return getStoryboardImage({ ...params, format: extension, access: accessFor(playback, 's') });
  }
  if (image === 'storyboard' && (extension === 'vtt' || extension === 'json')) {
    return getStoryboardMetadata({ ...params, format: extension, access: accessFor(playback, 's') });
  }
  throw notFound('Resource');
};

// Who asks: with the order of its requests, what tells viewers apart (viewer-streams.ts).
const clientOf = (request: IncomingMessage) => `${clientAddressOf(request) ?? ''} ${request.headers['user-agent'] ?? ''}`;

const renditionFileReply = async (playback: PlaybackRequest, rendition: string, file: string): Promise<PlaybackReply> => {
  const { playbackId } = playback.path;
  const found = await getRenditionFile({ playbackId, rendition, file, access: accessFor(playback, 'v'), client: clientOf(playback.request), viewer: playback.viewer });
  if ('redirectUrl' in found) return { redirectUrl: found.redirectUrl, contentType: CONTENT_TYPES.mp4, cacheControl: redirectCacheControl(found.cacheability) };
  return { filePath: found.path, lastModified: found.lastModified, contentType: CONTENT_TYPES.mp4, cacheControl: immutableCacheControl(found.cacheability) };
};

const staticRenditionReply = async (playback: PlaybackRequest, name: string): Promise<PlaybackReply> => {
  const found = await getStaticRenditionFile({ playbackId: playback.path.playbackId, name, access: accessFor(playback, 'v') });
  const download = playback.query.get('download');
  return {
    filePath: found.path,
    lastModified: found.lastModified,
    contentType: name.endsWith('.m4a') ? CONTENT_TYPES.m4a : CONTENT_TYPES.mp4,
    cacheControl: staticFileCacheControl(found.cacheability),
    ...(download !== null && { contentDisposition: downloadDisposition(download, name) }),
  };
};

// A text track can be deleted, so its files and segments are kept for an hour, not for ever.
const textTrackReply = async (playback: PlaybackRequest, trackId: string, extension: 'vtt' | 'txt'): Promise<PlaybackReply> => {
  const found = await getTextTrackFile({ playbackId: playback.path.playbackId, trackId, extension, access: accessFor(playback, 'v') });
  return { filePath: found.path, lastModified: found.lastModified, contentType: CONTENT_TYPES[extension], cacheControl: staticFileCacheControl(found.cacheability) };
};

const subtitlesSegmentReply = async (playback: PlaybackRequest, rendition: string, file: string): Promise<PlaybackReply> => {
  const segment = await getSubtitlesSegment({ playbackId: playback.path.playbackId, rendition, file, access: accessFor(playback, 'v') });
  return { text: segment.text, lastModified: segment.lastModified, contentType: CONTENT_TYPES.vtt, cacheControl: staticFileCacheControl(segment.cacheability) };
};

const replyFor = async (playback: PlaybackRequest): Promise<PlaybackReply> => {
  const { path, query } = playback;
  switch (path.kind) {
    case 'multivariant':
      return playlistReply(
        await getMultivariantPlaylist({
          playbackId: path.playbackId,
          maxResolution: query.get('max_resolution') ?? undefined,
          minResolution: query.get('min_resolution') ?? undefined,
          assetStartTime: query.get('asset_start_time') ?? undefined,
          assetEndTime: query.get('asset_end_time') ?? undefined,
          defaultSubtitlesLang: query.get('default_subtitles_lang') ?? undefined,
          access: accessFor(playback, 'v'),
          client: clientOf(playback.request),
        }),
      );
    case 'rendition-playlist':
      return playlistReply(
        await (isSubtitlesRendition(path.rendition) ? getSubtitlesPlaylist : getRenditionPlaylist)({
          playbackId: path.playbackId,
          rendition: path.rendition,
          assetStartTime: query.get('asset_start_time') ?? undefined,
          assetEndTime: query.get('asset_end_time') ?? undefined,
          access: accessFor(playback, 'v'),
        }),
      );
    case 'rendition-file':
      if (isSubtitlesRendition(path.rendition)) return subtitlesSegmentReply(playback, path.rendition, path.file);
      return renditionFileReply(playback, path.rendition, path.file);
    case 'image':
      return imageReply(await imageFor(playback, path.image, path.extension));
    case 'static-rendition':
      return staticRenditionReply(playback, path.name);
    case 'text-track':
      return textTrackReply(playback, path.trackId, path.extension);
    case 'unknown':
      throw notFound('Resource');
  }
};

// Players poll playlists; a public one already rendered is answered without a single await. Since
// Next.js enables AsyncLocalStorage (an async hook on every promise in Node 20), each promise on this
// path costs measurably at tens of thousands of requests a second.
const storedPlaylist = (path: PlaybackPath, query: URLSearchParams): PlaybackText | null => {
  // Looked up by path alone: an instant clip (a range in the query) always takes the full path.
  if (query.has('asset_start_time') || query.has('asset_end_time') || query.has('default_subtitles_lang')) return null;
  if (path.kind === 'rendition-playlist') return storedRenditionPlaylist({ playbackId: path.playbackId, rendition: path.rendition });
  if (path.kind !== 'multivariant') return null;
  return storedMultivariantPlaylist({
    playbackId: path.playbackId,
    maxResolution: query.get('max_resolution') ?? undefined,
    minResolution: query.get('min_resolution') ?? undefined,
  });
};

// A playlist answered from memory, or a stored file, of a public playback ID is the same for
// every request until the asset or the playback ID goes away (the workers are told then), so the
// worker that forwarded it may keep it.
// Static renditions are not: one can be deleted on its own, which workers are not told about.
const workerCacheable = (path: PlaybackPath): string[] | undefined => {
  if (path.kind === 'static-rendition') return undefined;
  const target = peekPublicPlayback(path.playbackId);
  if (!target) return undefined;
  const kind = path.kind === 'multivariant' ? 'multivariant' : path.kind === 'rendition-playlist' ? 'rendition' : 'file';
  return [CACHEABLE_HEADER, cacheableValue(kind, path.playbackId, target.assetId)];
};

const answer = async (playback: PlaybackRequest, response: ServerResponse): Promise<void> => {
  try {
    const reply = await replyFor(playback);
    const workerSendsFiles = workerTakesFiles(playback.request);
    const extraHeaders = workerSendsFiles ? workerCacheable(playback.path) : undefined;
    try {
      await sendPlaybackReply(playback.request, response, reply, { workerSendsFiles, extraHeaders });
    } catch (error) {
      // A text track deleted between being found and being opened is gone.
      if (isMissingFile(error) && playback.path.kind === 'text-track') throw notFound('Text track');
      // Evicted between being found and being opened: look again (it is encoded anew if need be).
      if (!isMissingFile(error) || !('filePath' in reply) || playback.path.kind !== 'rendition-file') throw error;
      forgetMissingRenditionFile(reply.filePath);
      await sendPlaybackReply(playback.request, response, await replyFor(playback), { workerSendsFiles, extraHeaders });
    }
  } catch (error) {
    if (isApiError(error) && error.type === 'failed_request' && (await forwardedToHolder(playback, response))) return;
    if (isApiError(error)) return sendPlaybackError(response, error);
    sendUnexpectedPlaybackError(response, error, { url: playback.request.url }, 'playback request failed');
  }
};

// Nothing playable here (412): a broadcast may be live on another node of the cluster, which then
// answers its HLS (forward-live.ts). Asked only on this error path, so on-demand playback pays nothing.
const forwardedToHolder = async (playback: PlaybackRequest, response: ServerResponse): Promise<boolean> => {
  if (!liveRequestOf(playback.path) || isForwardedLive(playback.request)) return false;
  const holder = await remoteBroadcastNodeUrl(playback.path.playbackId, getEnv().live.nodeUrl);
  if (!holder) return false;
  await forwardLive(playback.request, response, holder);
  return true;
};

// HLS of a broadcast running (or just ended) on this node; everything else under a live playback
// ID (images, downloads) goes the on-demand way.
const liveRequestOf = (path: PlaybackPath): LiveRequest | null => {
  if (path.kind === 'multivariant') return { kind: 'multivariant' };
  if (path.kind === 'rendition-playlist') return { kind: 'rendition-playlist', rendition: path.rendition };
  if (path.kind === 'rendition-file') return { kind: 'rendition-file', rendition: path.rendition, file: path.file };
  return null;
};

/**
 * Answers the request if it is for the playback host and returns true; returns false (having
 * done nothing) for anything else, which the caller hands to Next.js.
 */
export const servePlayback = (request: IncomingMessage, response: ServerResponse): boolean => {
  const url = request.url ?? '/';
  const queryStart = url.indexOf('?');
  const master = matchMasterPath(queryStart === -1 ? url : url.slice(0, queryStart));
  if (master && (request.method === 'GET' || request.method === 'HEAD')) {
    void serveMaster(request, response, { ...master, query: new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1)) });
    return true;
  }
  const path = matchPlaybackPath(queryStart === -1 ? url : url.slice(0, queryStart));
  if (!path) return false;
  countHttpRequest(response, playbackRouteClass(path));
  if (request.method === 'OPTIONS') {
    response.writeHead(204, PLAYBACK_PREFLIGHT_HEADERS).end();
    return true;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    sendPlaybackError(response, new ApiError('method_not_allowed', `${request.method} is not allowed here`, { allow: 'GET, HEAD, OPTIONS' }));
    return true;
  }
  const query = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  const live = findLivePlayback(path.playbackId);
  const liveRequest = live ? liveRequestOf(path) : null;
  if (live && liveRequest) {
    const access = accessFor({ path, query, request, viewer: () => new AbortController().signal }, 'v');
    void serveLive({ playbackId: path.playbackId, entry: live, liveRequest, query, access, request, response });
    return true;
  }
  const stored = storedPlaylist(path, query);
  if (stored) {
    sendTextReply(request, response, playlistReply(stored), isFromPlaybackWorker(request) ? workerCacheable(path) : undefined);
    return true;
  }
  const viewer = () => {
    const controller = new AbortController();
    if (response.destroyed && !response.writableFinished) controller.abort();
    else response.once('close', () => response.writableFinished || controller.abort());
    return controller.signal;
  };
  void answer({ path, query, request, viewer }, response);
  return true;
};
