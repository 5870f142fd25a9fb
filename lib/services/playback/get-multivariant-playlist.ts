import { filterLadder, type Rung } from '../../media/hls/ladder';
import { renderMultivariantPlaylist } from '../../media/hls/playlists';
import { renditionPlaylistUri } from '../../media/names';
import { playlistTracks } from './playlist-tracks';
import { getLogger } from '../../log';
import { affordableRungs, floorRungOf, overCapacity } from './affordable-rungs';
import { availableRungs } from './available-rungs';
import type { PlaybackPlan } from './playback-plan';
import { playbackState } from './playback-state';
import type { PlaybackTrack } from './playback-records';
import type { LRUCache } from 'lru-cache';
import { peekPublicPlayback, PLAYLIST_MAX_AGE_SECONDS, resolvePlayback, withProof, type PlaybackAccess, type PlaybackText } from './resolve-playback';
import { requestedClipRange, withClipRange, type ClipRangeQuery } from './instant-clips';
import { clipRangeKey } from '../../media/hls/instant-clip';
import { peekRendered, renderOnce } from './rendered-playlists';
import { ENCODE_PRIORITY, encodeDemand } from './runtime';
import { encodedBitrates } from './encoded-bitrates';
import { ensureVideoSegment, isSegmentBeingEncoded, storedVideoSegment } from './video-segments';

const PREFERRED_START_SHORT_SIDE = 540;

// Averages move with every segment encoded; declared to three significant digits, a playlist is
// rendered anew only when one has really moved.
const quantizedBitrate = (bitrate: number | undefined): number | undefined => {
  if (bitrate === undefined || bitrate <= 0) return undefined;
  const step = 10 ** Math.max(0, Math.floor(Math.log10(bitrate)) - 2);
  return Math.round(bitrate / step) * step;
};

// Players start with the first variant listed. Listing a mid-size rung first (as Mux does) gives a
// fast, sharp-enough first segment; the rest follow in ascending order for the player to adapt.
// When the encoders cannot also keep that rung going in real time for this asset, the largest
// cheaper rung that they can is listed first (or the cheapest), so more viewers play at once.
// `lowered` tells that the preferred rung was passed over.
export const startFirst = (rungs: Rung[], canStartOn: (rung: Rung) => boolean = () => true): { rungs: Rung[]; lowered: boolean } => {
  const shortSide = (rung: Rung) => Math.min(rung.width, rung.height);
  const descending = [...rungs].reverse();
  const preferredAt = Math.max(0, descending.findIndex((rung) => shortSide(rung) <= PREFERRED_START_SHORT_SIDE));
  const candidates = descending.slice(preferredAt);
  const start = candidates.find(canStartOn) ?? candidates.at(-1);
  if (!start) return { rungs, lowered: false };
  return { rungs: [start, ...rungs.filter((rung) => rung !== start)], lowered: start !== candidates[0] };
};

// A rung whose first segment is stored, or already being encoded (the cost measurement, another
// viewer's start), costs no new encode to start on. Otherwise the preferred rung is a new encode,
// made only when no other asset's viewers need the encoders: in a burst of fresh assets every
// start is on the cheapest rung (a 540p start costs 1.4 times a 270p one on the camera-like input,
// and every start's first segments are due at once), and players climb from there as segments
// come fast.
const canStartOn = (assetId: string, plan: PlaybackPlan, now: number) => (rung: Rung) =>
  !plan.video ||
  storedVideoSegment(assetId, rung, 0) !== null ||
  isSegmentBeingEncoded(assetId, rung, 0) ||
  (!encodeDemand().promisedBesides(assetId, now) && encodeDemand().fits(assetId, rung.name, now));

// A player that loads the multivariant playlist asks for the first variant's init segment and
// segment 0 a few milliseconds later; starting that encode now takes the playlist round trips off
// the time to first frame.
const warmFirstSegment = (assetId: string, plan: PlaybackPlan, rung: Rung | undefined, now: number, client: string | undefined) => {
  if (!rung || !plan.video || storedVideoSegment(assetId, rung, 0)) return;
  const floorRung = floorRungOf(plan);
  const admitted = encodeDemand().fits(assetId, rung.name, now) || (rung.name === floorRung && encodeDemand().admitsAsset(assetId, now, floorRung));
  // A viewer that will wait for admission must not start on a warmed segment 0 and then wait for
  // segment 1 (see getRenditionFile).
  if (!admitted) return;
  encodeDemand().reserve(assetId, rung.name, now, client);
  ensureVideoSegment({ assetId, plan, rung, index: 0, priority: ENCODE_PRIORITY.onDemand }).catch((error: unknown) =>
    getLogger().warn({ err: error, assetId, rung: rung.name }, 'warming the first segment failed'),
  );
};

const claimString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

// GET /{PLAYBACK_ID}.m3u8 – with a token, the modifiers come from its claims (players drop other
// query parameters), and the URLs listed carry a proof derived from the token.
export const getMultivariantPlaylist = async ({
  playbackId,
  maxResolution,
  minResolution,
  assetStartTime,
  assetEndTime,
  defaultSubtitlesLang,
  access,
  client,
}: ClipRangeQuery & {
  playbackId: string;
  maxResolution?: string;
  minResolution?: string;
  /** Which subtitles a player shows without being asked (BCP-47; a token's claim for signed IDs). */
  defaultSubtitlesLang?: string;
  access: PlaybackAccess;
  // Who asks (address and User-Agent), as for its segments: its own requests take over from the
  // start rung reserved for it.
  client?: string;
}): Promise<PlaybackText> => {
  const target = await resolvePlayback({ playbackId, access });
  const { assetId, plan, tracks, signed, claims, proof, cacheability, readyAt } = target;
  const range = requestedClipRange(target, { assetStartTime, assetEndTime });
  const limits = signed
    ? { max: claimString(claims.max_resolution), min: claimString(claims.min_resolution) }
    : { max: maxResolution, min: minResolution };
  const available = await availableRungs(assetId, plan);
  // Under load a new player is offered only what can be encoded in time (see affordable-rungs.ts).
  const { rungs: affordable, degraded } = affordableRungs(assetId, plan, filterLadder(available, limits));
  const now = Date.now();
  const { rungs, lowered } = startFirst(affordable, canStartOn(assetId, plan, now));
  // A clip starts elsewhere than segment 0; its player asks soon enough.
  if (!range) warmFirstSegment(assetId, plan, rungs[0], now, client);
  const subtitlesLang = signed ? claimString(claims.default_subtitles_lang) : defaultSubtitlesLang;
  // Tracks change (added, renamed, deleted): the key names them, so a change renders anew.
  const trackKey = tracks.map((track) => `${track.id}:${track.name}:${track.languageCode ?? ''}:${track.closedCaptions}`).join(',');
  const bitrates = await encodedBitrates(assetId);
  const encodedBitrate = (rung: Rung) => quantizedBitrate(bitrates.get(rung.name));
  const key = [
    'multivariant',
    playbackId,
    proof ?? '',
    clipRangeKey(range),
    subtitlesLang ?? '',
    trackKey,
    ...rungs.map((rung) => `${rung.name}:${encodedBitrate(rung) ?? ''}`),
  ].join('|');
  // Public: the media playlists get the range in their URLs. Signed: the proof carries it.
  const uriOf = (name: string) => withClipRange(withProof(renditionPlaylistUri(playbackId, name), proof), signed ? null : range);
  const text = renderOnce(key, () =>
    renderMultivariantPlaylist({
      rungs: rungs.map((rung) => ({ rung, uri: uriOf(rung.name), encodedBitrate: encodedBitrate(rung) })),
      videoSegmentDurations: plan.video?.segments.map((segment) => segment.duration) ?? [],
      ...playlistTracks({ plan, tracks, uriOf, defaultSubtitlesLang: subtitlesLang }),
    }),
  );
  // A complete ladder never changes again, so the same request can be answered from memory (not
  // a clipped one: the fast path looks requests up without their range).
  if (!signed && !range && !subtitlesLang && !degraded && !lowered && available.length === plan.rungs.length) {
    publicMultivariants().set(publicRequestKey(playbackId, maxResolution, minResolution), { key, startRung: rungs[0], tracks, answeredAt: now });
  }
  return { text, cacheability, lastModified: readyAt, momentary: degraded };
};

// Public multivariant requests already answered once with a complete ladder: which rendered
// playlist they get, the rung a player starts on, and the tracks it lists (the playback record's
// list, replaced whenever a track changes).
type AnsweredMultivariant = { key: string; startRung: Rung | undefined; tracks: PlaybackTrack[]; answeredAt: number };

// The averages declared (encodedBitrates) change as segments are encoded: an answer from memory is
// reused for as long as a cache may keep the playlist anyway (its max-age).
const ANSWER_REUSE_MS = PLAYLIST_MAX_AGE_SECONDS * 1000;

declare module './playback-state' {
  interface PlaybackState {
    publicMultivariants: LRUCache<string, AnsweredMultivariant>;
  }
}

const publicMultivariants = () => playbackState().publicMultivariants;

const publicRequestKey = (playbackId: string, maxResolution: string | undefined, minResolution: string | undefined) =>
  `${playbackId}|${maxResolution ?? ''}|${minResolution ?? ''}`;

/**
 * A public multivariant playlist answered before, without waiting for anything; else null. Null
 * too while the first segment of its start rung is not stored, so the full path warms it.
 */
export const storedMultivariantPlaylist = ({
  playbackId,
  maxResolution,
  minResolution,
}: ClipRangeQuery & {
  playbackId: string;
  maxResolution?: string;
  minResolution?: string;
}): PlaybackText | null => {
  const target = peekPublicPlayback(playbackId);
  const known = target && publicMultivariants().get(publicRequestKey(playbackId, maxResolution, minResolution));
  // Under load the full path decides which rungs can be offered.
  if (!target || !known || overCapacity() || Date.now() - known.answeredAt > ANSWER_REUSE_MS) return null;
  // A track was added, renamed or deleted since: the playlist is rendered anew.
  if (known.tracks !== target.tracks) return null;
  if (known.startRung && target.plan.video && !storedVideoSegment(target.assetId, known.startRung, 0)) return null;
  // The encoders could not keep the usual start rung going for one more viewer: the full path picks one.
  if (known.startRung && target.plan.video && !encodeDemand().fits(target.assetId, known.startRung.name, Date.now())) return null;
  const text = peekRendered(known.key);
  return text === undefined ? null : { text, cacheability: target.cacheability, lastModified: target.readyAt };
};

/**
 * Whether the multivariant playlists answered from memory stay right for any number of new viewers:
 * nothing waits for an encoder and no viewer's rung is being held, so no request would be steered.
 */
export const multivariantsSteadyForNewViewers = (now = Date.now()): boolean => !overCapacity() && encodeDemand().demand(now) === 0;
