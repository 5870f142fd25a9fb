import { instanceSecrets } from '../../auth/instance-secrets';
import { checkPlaybackRestriction } from '../../auth/playback-restriction-check';
import { signPlaybackProof, verifyPlaybackProof } from '../../auth/playback-proof';
import { verifyPlaybackToken, type PlaybackAudience } from '../../auth/playback-token';
import { findLivePlaybackId } from '../records/find-live-stream';
import { getEnv } from '../../env';
import { ApiError, invalidId, notFound } from '../../errors/api-error';
import { isWellFormedId } from '../../utils/ids';
import { findRestrictionRules } from '../playback-restrictions/find-restriction-rules';
import { findSigningPublicKey } from '../signing-keys/find-signing-public-key';
import type { ClipRangeQuery } from './instant-clips';
import type { PlaybackPlan } from './playback-plan';
import { clipRangeOf } from './instant-clips';
import { findPlaybackRecord, peekPlaybackRecord, type PlaybackTrack } from './playback-records';

// Who is asking: the `token` (or `TOKEN`) query parameter, the proof carried by URLs inside a
// signed playlist, and the headers playback restrictions look at.
export type PlaybackAccess = {
  token: string | null;
  proof?: string | null;
  audience: PlaybackAudience;
  referrer: string | null;
  userAgent: string | null;
};

// Who may keep an answer, and until when. `private`: it depends on who asks (a playback
// restriction checked the Referer and User-Agent), so a shared cache must not keep it; everything
// else depends on the URL alone. `expiresAt` (Unix seconds): the answer was opened by a token or
// proof that stops working then, so no cache may keep it longer.
export type Cacheability = { scope: 'public' | 'private'; expiresAt: number | null };

// How long a cache may keep a playlist: they are made from the plan and can change (a background
// rung completes, a rung's AVERAGE-BANDWIDTH follows its encodes).
export const PLAYLIST_MAX_AGE_SECONDS = 10;

// What playback services hand to the HTTP layer: a stored file, or text made from the plan.
// Files are the same on every node (encodes are deterministic), and so is their date: the asset's
// ready time, not a node's file time, so validators agree whichever node answers.
export type PlaybackFile = { path: string; cacheability: Cacheability; lastModified: Date };
// `momentary`: the text reflects the encoders' load right now (a ladder cut down to what can be
// encoded in time), so nothing may keep it.
export type PlaybackText = { text: string; cacheability: Cacheability; lastModified: Date; momentary?: boolean };

/** A rendition playlist's URL (`/{PLAYBACK_ID}/{rendition}.m3u8`) with its instant-clip query (a multivariant playlist put it there). */
export type RenditionPlaylistRequest = ClipRangeQuery & { playbackId: string; rendition: string; access: PlaybackAccess };

export type PlaybackTarget = {
  assetId: string;
  plan: PlaybackPlan;
  /** Ready audio and text tracks (see playback-records.ts). */
  tracks: PlaybackTrack[];
  // When the asset became playable: what playlists generated from its plan date from.
  readyAt: Date;
  signed: boolean;
  cacheability: Cacheability;
  // For signed playback IDs, the token's claims: playback modifiers and image parameters come
  // from here rather than from the query string.
  claims: Record<string, unknown>;
  // For signed video requests: what URLs inside the served playlist must carry (`?kfp=`).
  proof: string | null;
};

const forbidden = (reason: string) => new ApiError('forbidden', reason);

const proofKey = () => Buffer.from(instanceSecrets(getEnv().dataDir).playbackProofKey, 'base64url');

const enforceRestriction = async (restrictionId: string, access: PlaybackAccess): Promise<void> => {
  const rules = await findRestrictionRules(restrictionId);
  if (!rules) throw forbidden(`Playback restriction ${restrictionId} named by the token does not exist`);
  const check = checkPlaybackRestriction(rules, access);
  if (!check.ok) throw forbidden(check.reason);
};

// A signed playback ID needs a valid token for the kind of resource asked for (or, for URLs
// inside a signed playlist, the proof derived from one), and passes its playback restriction.
export const authorizeSignedPlayback = async (
  playbackId: string,
  access: PlaybackAccess,
): Promise<{ claims: Record<string, unknown>; proof: string | null; restricted: boolean; expiresAt: number }> => {
  if (access.proof && access.audience === 'v') {
    const checked = verifyPlaybackProof(proofKey(), access.proof, playbackId, Math.floor(Date.now() / 1000));
    if (!checked.ok) throw forbidden(checked.reason);
    if (checked.grant.restrictionId) await enforceRestriction(checked.grant.restrictionId, access);
    // The instant clip of the token the proof came from, as the claims it was read from.
    const { clip } = checked.grant;
    const claims = clip ? { asset_start_time: clip.start ?? undefined, asset_end_time: clip.end ?? undefined } : {};
    return { claims, proof: access.proof, restricted: checked.grant.restrictionId !== null, expiresAt: checked.grant.expiresAt };
  }
  if (!access.token) throw forbidden('This playback ID is signed: add ?token=<JWT signed with one of your signing keys>');
  const checked = await verifyPlaybackToken({ token: access.token, playbackId, audience: access.audience, findPublicKey: findSigningPublicKey });
  if (!checked.ok) throw forbidden(checked.reason);
  const restrictionId = typeof checked.claims.playback_restriction_id === 'string' ? checked.claims.playback_restriction_id : null;
  if (restrictionId) await enforceRestriction(restrictionId, access);
  const clip = access.audience === 'v' ? clipRangeOf({ start: checked.claims.asset_start_time, end: checked.claims.asset_end_time }) : null;
  const proof =
    access.audience === 'v' ? signPlaybackProof(proofKey(), { playbackId, expiresAt: Number(checked.claims.exp), restrictionId, clip }) : null;
  return { claims: checked.claims, proof, restricted: restrictionId !== null, expiresAt: Number(checked.claims.exp) };
};

// Maps a playback ID to a playable asset, with Mux's delivery status codes: malformed 400, unknown
// or deleted 404, signed without valid proof 403 (with the reason), not ready or errored 412.
export const resolvePlayback = async ({ playbackId, access }: { playbackId: string; access: PlaybackAccess }): Promise<PlaybackTarget> => {
  if (!isWellFormedId(playbackId)) throw invalidId('Playback', playbackId);
  const found = await findPlaybackRecord(playbackId);
  if (!found) {
    // A live stream's playback ID with no broadcast on this node (live-registry.ts answers those that have one).
    if (await findLivePlaybackId(playbackId)) {
      throw new ApiError('failed_request', 'The live stream is not active: no encoder is publishing to it');
    }
    throw notFound('Playback ID');
  }
  const signed = found.policy === 'signed';
  const { claims, proof, restricted, expiresAt } = signed
    ? await authorizeSignedPlayback(playbackId, access)
    : { claims: {}, proof: null, restricted: false, expiresAt: null };
  if (found.status === 'errored') throw new ApiError('failed_request', 'Asset has errored and cannot be played');
  if (found.status !== 'ready' || !found.plan) throw new ApiError('failed_request', 'Asset is not ready');
  return {
    assetId: found.assetId,
    plan: found.plan,
    tracks: found.tracks,
    readyAt: found.readyAt ?? new Date(0),
    signed,
    cacheability: { scope: restricted ? 'private' : 'public', expiresAt },
    claims,
    proof,
  };
};

const PUBLIC_ACCESS = { claims: {}, proof: null, cacheability: { scope: 'public', expiresAt: null } } as const;

// The target of a public playback ID whose record is already in memory, without waiting for
// anything: a player polling a cached playlist is answered in the same tick as its request. Anything
// else (signed, not looked up yet, not ready) is null and goes through resolvePlayback.
export const peekPublicPlayback = (playbackId: string): PlaybackTarget | null => {
  const found = peekPlaybackRecord(playbackId);
  if (!found || found.policy !== 'public' || found.status !== 'ready' || !found.plan) return null;
  return { assetId: found.assetId, plan: found.plan, tracks: found.tracks, readyAt: found.readyAt ?? new Date(0), signed: false, ...PUBLIC_ACCESS };
};

// Appends the proof of a signed playlist to a URL it lists.
export const withProof = (uri: string, proof: string | null): string => (proof ? `${uri}?kfp=${proof}` : uri);
