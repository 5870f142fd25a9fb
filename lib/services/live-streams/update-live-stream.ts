import { getDb } from '../../db/client';
import { ApiError, notFound } from '../../errors/api-error';
import { normalizeUpdateLiveStream, type UpdateLiveStreamBody } from '../../schemas/live-stream';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow, type StoredLiveStream } from './live-stream-record';

const LATENCY_WHILE_ACTIVE = 'latency_mode: cannot be changed while the live stream is active; change it between broadcasts';

// PATCH /video/v1/live-streams/{id}: the subset Mux documents, reported as video.live_stream.updated.
export const updateLiveStream = async ({ liveStreamId, body }: { liveStreamId: string; body: UpdateLiveStreamBody }): Promise<StoredLiveStream> =>
  getDb().$transaction(async (tx) => {
    const stream = await findLiveStreamOrThrow(tx, liveStreamId);
    const changes = normalizeUpdateLiveStream(stream, body);
    if (!changes.ok) throw new ApiError('invalid_parameters', changes.messages);
    // A publisher may connect between the read above and this write; the condition keeps a new
    // latency mode from landing on a broadcast that already runs with the old one.
    const changesLatency = changes.value.latencyMode !== undefined && changes.value.latencyMode !== stream.latencyMode;
    const updated = await tx.liveStream.updateMany({
      where: { id: liveStreamId, ...(changesLatency && { status: { not: 'active' } }) },
      data: changes.value,
    });
    if (updated.count === 0) throw changesLatency ? new ApiError('invalid_parameters', LATENCY_WHILE_ACTIVE) : notFound('Live stream');
    await recordLiveStreamEvent(tx, 'video.live_stream.updated', liveStreamId);
    return findLiveStreamOrThrow(tx, liveStreamId);
  });
