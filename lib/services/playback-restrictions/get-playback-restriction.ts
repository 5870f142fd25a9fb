import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import type { PlaybackRestrictionRecord } from '../../schemas/playback-restriction';

export const getPlaybackRestriction = async ({ restrictionId }: { restrictionId: string }): Promise<PlaybackRestrictionRecord> => {
  const restriction = await getDb().playbackRestriction.findUnique({ where: { id: restrictionId } });
  if (!restriction) throw notFound('Playback Restriction');
  return restriction;
};
