import { getDb } from '../../db/client';
import { isWellFormedId } from '../../utils/id-format';
import { aspectRatioOf, DEFAULT_ASPECT_RATIO, type PlayerSource } from './player-source';

// Which asset or live stream a playback ID plays, with what the player page shows of it. Read from
// the database on every page request: the page is cached by browsers and CDNs, not here.

const titleOf = (metaJson: string | null): string | null => {
  if (!metaJson) return null;
  try {
    const title: unknown = (JSON.parse(metaJson) as { title?: unknown }).title;
    return typeof title === 'string' && title.trim() !== '' ? title : null;
  } catch {
    return null;
  }
};

const assetStatusOf = (status: string): PlayerSource['status'] => (status === 'ready' || status === 'errored' ? status : 'preparing');

/** The video behind a playback ID; null for an unknown or malformed one. */
export const findPlayerSource = async (playbackId: string): Promise<PlayerSource | null> => {
  if (!isWellFormedId(playbackId)) return null;
  const db = getDb();
  const asset = await db.playbackId.findUnique({
    where: { id: playbackId },
    select: { policy: true, asset: { select: { status: true, metaJson: true, aspectRatio: true } } },
  });
  if (asset) {
    return {
      playbackId,
      kind: 'asset',
      signed: asset.policy === 'signed',
      title: titleOf(asset.asset.metaJson),
      aspectRatio: aspectRatioOf(asset.asset.aspectRatio),
      status: assetStatusOf(asset.asset.status),
    };
  }
  const live = await db.liveStreamPlaybackId.findUnique({
    where: { id: playbackId },
    select: { policy: true, liveStream: { select: { metaJson: true } } },
  });
  if (!live) return null;
  return {
    playbackId,
    kind: 'live_stream',
    signed: live.policy === 'signed',
    title: titleOf(live.liveStream.metaJson),
    aspectRatio: DEFAULT_ASPECT_RATIO,
    status: 'ready',
  };
};
