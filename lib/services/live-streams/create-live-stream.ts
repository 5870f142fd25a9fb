import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import { normalizeCreateLiveStream, type CreateLiveStreamBody } from '../../schemas/live-stream';
import { generateId } from '../../utils/ids';
import { recordLiveStreamEvent, recordSimulcastTargetEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow, newSrtPassphrase, newStreamKey, type StoredLiveStream } from './live-stream-record';
import { insertSimulcastTargets, validateSimulcastDestinations } from './simulcast-targets';

// POST /video/v1/live-streams: an `idle` stream with its playback IDs and simulcast targets,
// reported as video.live_stream.created, then each target's own created, in the same transaction.
export const createLiveStream = async ({ body }: { body: CreateLiveStreamBody }): Promise<StoredLiveStream> => {
  const normalized = normalizeCreateLiveStream(body);
  if (!normalized.ok) throw new ApiError('invalid_parameters', normalized.messages);
  const { playbackPolicies, simulcastTargets, ...settings } = normalized.value;
  await validateSimulcastDestinations(simulcastTargets, (index) => `simulcast_targets[${index}].url`);
  const liveStreamId = generateId();
  return getDb().$transaction(async (tx) => {
    await tx.liveStream.create({
      data: {
        id: liveStreamId,
        streamKey: newStreamKey(),
        srtPassphrase: newSrtPassphrase(),
        status: 'idle',
        ...settings,
        playbackIds: { create: playbackPolicies.map((policy) => ({ id: generateId(), policy })) },
      },
    });
    const targets = await insertSimulcastTargets(tx, liveStreamId, simulcastTargets);
    // The stream's event shows its targets; each target's own event follows it.
    await recordLiveStreamEvent(tx, 'video.live_stream.created', liveStreamId);
    for (const target of targets) await recordSimulcastTargetEvent(tx, 'video.live_stream.simulcast_target.created', target);
    return findLiveStreamOrThrow(tx, liveStreamId);
  });
};
