import { filterLadder, type Rung } from '../../media/hls/ladder';
import { renderMultivariantPlaylist } from '../../media/hls/playlists';
import { getLogger } from '../../log';
import { availableRungs } from './available-rungs';
import type { PlaybackPlan } from './playback-plan';
import { resolvePlayback } from './resolve-playback';
import { ENCODE_PRIORITY } from './runtime';
import { ensureVideoSegment } from './video-segments';

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
  if (!rung || !plan.video) return;
  ensureVideoSegment({ assetId, plan, rung, index: 0, priority: ENCODE_PRIORITY.onDemand }).catch((error: unknown) =>
    getLogger().warn({ err: error, assetId, rung: rung.name }, 'warming the first segment failed'),
  );
};

// GET /{PLAYBACK_ID}.m3u8
export const getMultivariantPlaylist = async ({
  playbackId,
  maxResolution,
  minResolution,
}: {
  playbackId: string;
  maxResolution?: string;
  minResolution?: string;
}): Promise<string> => {
  const { assetId, plan } = await resolvePlayback({ playbackId });
  const rungs = startFirst(filterLadder(await availableRungs(assetId, plan), { max: maxResolution, min: minResolution }));
  warmFirstSegment(assetId, plan, rungs[0]);
  return renderMultivariantPlaylist({
    rungs: rungs.map((rung) => ({ rung, uri: `${playbackId}/${rung.name}.m3u8` })),
    audio: plan.audio ? { uri: `${playbackId}/audio.m3u8`, channels: plan.audio.channels } : null,
  });
};
