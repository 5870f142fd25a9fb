import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import { normalizeCreateLiveStream, type CreateLiveStreamBody } from '../../schemas/live-stream';
import { generateId } from '../../utils/ids';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow, newSrtPassphrase, newStreamKey, type StoredLiveStream } from './live-stream-record';

// POST /video/v1/live-streams: an `idle` stream with its playback IDs, reported as
// video.live_stream.created in the same transaction.
export const createLiveStream = async ({ body }: { body: CreateLiveStreamBody }): Promise<StoredLiveStream> => {
  const normalized = normalizeCreateLiveStream(body);
  if (!normalized.ok) throw new ApiError('invalid_parameters', normalized.messages);
  const { playbackPolicies, ...settings } = normalized.value;
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
    await recordLiveStreamEvent(tx, 'video.live_stream.created', liveStreamId);
    return findLiveStreamOrThrow(tx, liveStreamId);
  });
};
