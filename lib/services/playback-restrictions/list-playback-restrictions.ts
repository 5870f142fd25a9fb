import { getDb } from '../../db/client';
import type { PlaybackRestrictionRecord } from '../../schemas/playback-restriction';

export const listPlaybackRestrictions = async ({ limit = 25, page = 1 }: { limit?: number; page?: number }): Promise<PlaybackRestrictionRecord[]> =>
  getDb().playbackRestriction.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: (page - 1) * limit, take: limit });
