import type { z } from 'zod';
import { getDb } from '../../db/client';
import type { createPlaybackRestrictionSchema, PlaybackRestrictionRecord } from '../../schemas/playback-restriction';
import { generateId } from '../../utils/ids';
import { referrerData, userAgentData } from './restriction-rules';

export const createPlaybackRestriction = async (body: z.infer<typeof createPlaybackRestrictionSchema>): Promise<PlaybackRestrictionRecord> =>
  getDb().playbackRestriction.create({ data: { id: generateId(), ...referrerData(body.referrer), ...userAgentData(body.user_agent) } });
