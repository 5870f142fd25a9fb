import { filterLadder, type Rung } from '../../media/hls/ladder';
import { renderMultivariantPlaylist } from '../../media/hls/playlists';
import { availableRungs } from './available-rungs';
import { resolvePlayback } from './resolve-playback';

const PREFERRED_START_SHORT_SIDE = 540;

// Players start with the first variant listed. Listing a mid-size rung first (as Mux does) gives a
// fast, sharp-enough first segment; the rest follow in ascending order for the player to adapt.
const startFirst = (rungs: Rung[]): Rung[] => {
  const shortSide = (rung: Rung) => Math.min(rung.width, rung.height);
  const start = [...rungs].reverse().find((rung) => shortSide(rung) <= PREFERRED_START_SHORT_SIDE) ?? rungs[0];
  return start ? [start, ...rungs.filter((rung) => rung !== start)] : rungs;
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
  const rungs = filterLadder(await availableRungs(assetId, plan), { max: maxResolution, min: minResolution });
  return renderMultivariantPlaylist({
    rungs: startFirst(rungs).map((rung) => ({ rung, uri: `${playbackId}/${rung.name}.m3u8` })),
    audio: plan.audio ? { uri: `${playbackId}/audio.m3u8`, channels: plan.audio.channels } : null,
  });
};
