import { getDb } from '../../db/client';
import type { PlaybackRestrictionRecord } from '../../schemas/playback-restriction';
import { tellOtherNodes } from '../../coordination/tell-other-nodes';
import { forgetRestrictionRules } from './restriction-rules-cache';
import { getPlaybackRestriction } from './get-playback-restriction';
import { referrerData, userAgentData, type ReferrerRules, type UserAgentRules } from './restriction-rules';

// PUT …/referrer and PUT …/user_agent
export const updatePlaybackRestriction = async ({
  restrictionId,
  referrer,
  userAgent,
}: {
  restrictionId: string;
  referrer?: ReferrerRules;
  userAgent?: UserAgentRules;
}): Promise<PlaybackRestrictionRecord> => {
  await getPlaybackRestriction({ restrictionId });
  const updated = await getDb().playbackRestriction.update({
    where: { id: restrictionId },
    data: { ...referrerData(referrer), ...userAgentData(userAgent) },
  });
  forgetRestrictionRules(restrictionId);
  await tellOtherNodes({ type: 'restriction-changed', restrictionId });
  return updated;
};
