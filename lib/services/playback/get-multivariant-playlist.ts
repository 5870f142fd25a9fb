import { filterLadder, type Rung } from '../../media/hls/ladder';
import { renderMultivariantPlaylist } from '../../media/hls/playlists';
import { getLogger } from '../../log';
import { availableRungs } from './available-rungs';
import type { PlaybackPlan } from './playback-plan';
import { resolvePlayback, withProof, type PlaybackAccess, type PlaybackText } from './resolve-playback';
import { renderOnce } from './rendered-playlists';
import { ENCODE_PRIORITY } from './runtime';
import { ensureVideoSegment, storedVideoSegment } from './video-segments';

const PREFERRED_START_SHORT_SIDE = 540;

// Players start with the first variant listed. Listing a mid-size rung first (as Mux does) gives a
// fast, sharp-enough first segment; the rest follow in ascending order for the player to adapt.
const startFirst = (rungs: Rung[]): Rung[] => {
  const shortSide = (rung: Rung) => Math.min(rung.width, rung.height);
  const start = [...rungs].reverse().find((rung) => shortSide(rung) <= PREFERRED_START_SHORT_SIDE) ?? rungs[0];
  return start ? [start, ...rungs.filter((rung) => rung !== start)] : rungs;
};

// A player that loads the multivariant playlist asks for the first variant's init segment and
// segment 0 a few milliseconds later; starting that encode now takes the playlist round trips off
// the time to first frame.
const warmFirstSegment = (assetId: string, plan: PlaybackPlan, rung: Rung | undefined) => {
  if (!rung || !plan.video || storedVideoSegment(assetId, rung, 0)) return;
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
  access,
}: {
  playbackId: string;
  maxResolution?: string;
  minResolution?: string;
  access: PlaybackAccess;
}): Promise<PlaybackText> => {
  const { assetId, plan, signed, claims, proof, cacheability, readyAt } = await resolvePlayback({ playbackId, access });
  const limits = signed
    ? { max: claimString(claims.max_resolution), min: claimString(claims.min_resolution) }
    : { max: maxResolution, min: minResolution };
  const rungs = startFirst(filterLadder(await availableRungs(assetId, plan), limits));
  warmFirstSegment(assetId, plan, rungs[0]);
  const key = ['multivariant', playbackId, proof ?? '', ...rungs.map((rung) => rung.name)].join('|');
  const text = renderOnce(key, () =>
    renderMultivariantPlaylist({
      rungs: rungs.map((rung) => ({ rung, uri: withProof(`${playbackId}/${rung.name}.m3u8`, proof) })),
      audio: plan.audio ? { uri: withProof(`${playbackId}/audio.m3u8`, proof), channels: plan.audio.channels } : null,
    }),
  );
  return { text, cacheability, lastModified: readyAt };
};
