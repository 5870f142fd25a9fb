import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import { tellOtherNodes } from '../../coordination/tell-other-nodes';
import { forgetRestrictionRules } from './restriction-rules-cache';

// Tokens that name a deleted restriction are refused from then on (see resolve-playback.ts).
export const deletePlaybackRestriction = async ({ restrictionId }: { restrictionId: string }): Promise<void> => {
  const deleted = await getDb().playbackRestriction.deleteMany({ where: { id: restrictionId } });
  forgetRestrictionRules(restrictionId);
  await tellOtherNodes({ type: 'restriction-changed', restrictionId });
  if (deleted.count === 0) throw notFound('Playback Restriction');
};
