import { blockingReloadTarget, renderLiveMediaPlaylist, renderLiveMultivariantPlaylist, type ClosedCaptionsMedia } from '../../media/live/live-playlists';
import { ApiError, notFound } from '../../errors/api-error';
import {
  livePartFileName,
  parseLiveInitFileName,
  parseLivePartFileName,
  parseSegmentFileName,
  parseSubtitlesSegmentFileName,
  playlistFileName,
  renditionFileUri,
  renditionPlaylistUri,
} from '../../media/names';
import { authorizeSignedPlayback, withProof, type Cacheability, type PlaybackAccess } from '../playback/resolve-playback';
import { LIVE_CAPTIONS_RENDITION, type LiveCaptionsTrack } from './live-captions';
import type { LiveTimeline } from './live-timeline';
import type { LivePlaybackEntry } from './live-registry';

// Live HLS from a broadcast in memory: the multivariant playlist, media playlists (sliding window
// or EVENT, with blocking reloads in low-latency mode), init segments, segments and parts.

export type LiveAnswer = {
  body: Buffer | string;
  /** media: fMP4 init segments, segments and parts; text: WebVTT segments of the captions. */
  kind: 'playlist' | 'media' | 'text';
  cacheability: Cacheability;
  /** Playlists of a running broadcast change every part: caches keep them a second at most. */
  changing: boolean;
};

export type LiveRequest =
  | { kind: 'multivariant' }
  | { kind: 'rendition-playlist'; rendition: string }
  | { kind: 'rendition-file'; rendition: string; file: string };

const notActive = () => new ApiError('failed_request', 'The live stream is not active yet: no media has arrived from the encoder');

const authorize = async (playbackId: string, entry: LivePlaybackEntry, access: PlaybackAccess) => {
  if (entry.policy !== 'signed') return { proof: null, cacheability: { scope: 'public', expiresAt: null } satisfies Cacheability };
  const granted = await authorizeSignedPlayback(playbackId, access);
  return { proof: granted.proof, cacheability: { scope: granted.restricted ? 'private' : 'public', expiresAt: granted.expiresAt } satisfies Cacheability };
};

const timelineOf = (entry: LivePlaybackEntry, rendition: string): LiveTimeline => {
  const timeline = entry.broadcast.timelines.find((candidate) => candidate.rendition === rendition);
  if (!timeline) throw notFound('Rendition');
  return timeline;
};

// Proofs ride on every URL of a signed playlist (see resolve-playback.ts); parts and hints too.
const signUris = (playlist: string, proof: string | null): string =>
  proof ? playlist.replace(/^(?!#)(\S+)$/gm, (uri) => withProof(uri, proof)).replace(/URI="([^"]+)"/g, (_, uri: string) => `URI="${withProof(uri, proof)}"`) : playlist;

const mediaPlaylist = async (entry: LivePlaybackEntry, timeline: LiveTimeline, query: URLSearchParams, proof: string | null): Promise<string> => {
  const { broadcast } = entry;
  const lowLatency = broadcast.profile.lowLatency;
  const target = lowLatency ? blockingReloadTarget(query) : null;
  if (target === 'invalid') throw new ApiError('invalid_parameters', '_HLS_part needs _HLS_msn');
  if (target) {
    const edge = timeline.nextMsn;
    // Apple: a request more than two segments beyond the edge is an error, not a wait.
    if (target.msn > edge + 2) throw new ApiError('invalid_parameters', `_HLS_msn=${target.msn} is beyond the live edge (${edge})`);
    const reached = await timeline.waitFor(target.msn, target.part, timeline.targetDurationSeconds * 3 * 1000);
    if (!reached) throw new ApiError('service_unavailable', `Segment ${target.msn} did not arrive in time`);
  }
  const ended = timeline.isEnded;
  const fromIndex = entry.playlistType === 'sliding' ? timeline.windowStart() : 0;
  // A broadcast continued from another node counts that node's discontinuities too (players
  // line connections up by it).
  const discontinuitySequence = broadcast.discontinuitiesBefore + timeline.segments.slice(0, fromIndex).filter((segment) => segment.discontinuity).length;
  const openSegment = timeline.openSegmentEntry();
  const playlist = renderLiveMediaPlaylist({
    playlistType: entry.playlistType,
    ended,
    targetDurationSeconds: timeline.targetDurationSeconds,
    mediaSequence: timeline.segments[fromIndex]?.msn ?? 0,
    discontinuitySequence,
    segments: timeline.entries(fromIndex, Boolean(lowLatency)),
    ...(lowLatency &&
      !ended && {
        lowLatency: {
          partTargetSeconds: lowLatency.partTargetSeconds,
          partHoldBackSeconds: lowLatency.partHoldBackSeconds,
          openSegment,
          preloadHintUri: renditionFileUri(
            timeline.rendition,
            openSegment ? livePartFileName(openSegment.msn, openSegment.parts.length) : livePartFileName(timeline.nextMsn, 0),
          ),
          renditionReports: broadcast.timelines
            .filter((other) => other !== timeline)
            .flatMap((other) => {
              const last = other.lastPart();
              return last ? [{ uri: playlistFileName(other.rendition), lastMsn: last.msn, lastPart: last.part }] : [];
            }),
        },
      }),
  });
  return signUris(playlist, proof);
};

// The generated captions: a plain live playlist (no parts, no blocking reload: hls.js reloads it
// every target duration), listing what live-captions.ts has decided.
const captionsPlaylist = (entry: LivePlaybackEntry, captions: LiveCaptionsTrack, proof: string | null): string => {
  const fromIndex = entry.playlistType === 'sliding' ? captions.windowStart() : 0;
  return signUris(
    renderLiveMediaPlaylist({
      playlistType: entry.playlistType,
      ended: captions.isEnded,
      targetDurationSeconds: captions.targetDurationSeconds,
      mediaSequence: captions.listed[fromIndex]?.msn ?? entry.broadcast.timelines[0]?.segments[0]?.msn ?? 0,
      discontinuitySequence: entry.broadcast.discontinuitiesBefore + captions.listed.slice(0, fromIndex).filter((segment) => segment.discontinuity).length,
      segments: captions.entries(fromIndex),
    }),
    proof,
  );
};

const answerCaptions = (entry: LivePlaybackEntry, request: Exclude<LiveRequest, { kind: 'multivariant' }>, proof: string | null, cacheability: Cacheability): LiveAnswer => {
  const { captions } = entry.broadcast;
  if (!captions) throw notFound('Rendition');
  if (request.kind === 'rendition-playlist') return { body: captionsPlaylist(entry, captions, proof), kind: 'playlist', cacheability, changing: !captions.isEnded };
  const msn = parseSubtitlesSegmentFileName(request.file);
  const text = msn === null ? null : captions.segmentText(msn);
  if (text === null) throw notFound('Segment');
  return { body: text, kind: 'text', cacheability, changing: false };
};

// A preload hint names a part before it exists: the request waits for it, as Apple's spec asks.
const partBytes = async (timeline: LiveTimeline, msn: number, part: number): Promise<Buffer> => {
  const ready = timeline.partBytes(msn, part);
  if (ready) return ready;
  if (msn > timeline.nextMsn + 1) throw notFound('Part');
  await timeline.waitFor(msn, part, timeline.targetDurationSeconds * 3 * 1000);
  const arrived = timeline.partBytes(msn, part);
  if (!arrived) throw notFound('Part');
  return arrived;
};

export const answerLive = async ({
  playbackId,
  entry,
  request,
  query,
  access,
}: {
  playbackId: string;
  entry: LivePlaybackEntry;
  request: LiveRequest;
  query: URLSearchParams;
  access: PlaybackAccess;
}): Promise<LiveAnswer> => {
  const { proof, cacheability } = await authorize(playbackId, entry, access);
  const { broadcast } = entry;
  if (!broadcast.isPlayable) throw notActive();
  const changing = !broadcast.isEnded;
  if (request.kind === 'multivariant') {
    const variants = broadcast.variants().map(({ rendition, ...variant }) => ({ ...variant, uri: renditionPlaylistUri(playbackId, rendition) }));
    const { generated, embedded } = broadcast.text;
    const subtitles = generated
      ? [{ uri: renditionPlaylistUri(playbackId, LIVE_CAPTIONS_RENDITION), name: generated.name, language: generated.languageCode, closedCaptions: false, isDefault: false }]
      : [];
    const closedCaptions = embedded.map((track) => ({ name: track.name, language: track.language_code, instreamId: track.language_channel.toUpperCase() as ClosedCaptionsMedia['instreamId'] }));
    return { body: signUris(renderLiveMultivariantPlaylist(variants, { subtitles, closedCaptions }), proof), kind: 'playlist', cacheability, changing };
  }
  if (request.rendition === LIVE_CAPTIONS_RENDITION) return answerCaptions(entry, request, proof, cacheability);
  const timeline = timelineOf(entry, request.rendition);
  if (request.kind === 'rendition-playlist') {
    return { body: await mediaPlaylist(entry, timeline, query, proof), kind: 'playlist', cacheability, changing };
  }
  const connection = parseLiveInitFileName(request.file);
  if (connection !== null) {
    const bytes = timeline.init(connection);
    if (!bytes) throw notFound('Init segment');
    return { body: bytes, kind: 'media', cacheability, changing: false };
  }
  const part = parseLivePartFileName(request.file);
  if (part) return { body: await partBytes(timeline, part.msn, part.part), kind: 'media', cacheability, changing: false };
  const msn = parseSegmentFileName(request.file);
  const bytes = msn === null ? null : await timeline.segmentBytes(msn);
  if (!bytes) throw notFound('Segment');
  return { body: bytes, kind: 'media', cacheability, changing: false };
};
