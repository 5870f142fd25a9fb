import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import { normalizeGeneratedLiveSubtitles, type GeneratedLiveSubtitlesBody } from '../../schemas/live-captions';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow, type StoredLiveStream } from './live-stream-record';

// PUT /video/v1/live-streams/{id}/generated-subtitles: replaces the stream's generated captions
// settings. A broadcast takes them when it starts, so a change reaches the next one.
export const setGeneratedLiveSubtitles = async ({
  liveStreamId,
  generatedSubtitles,
}: {
  liveStreamId: string;
  generatedSubtitles: GeneratedLiveSubtitlesBody;
}): Promise<StoredLiveStream> => {
  const normalized = normalizeGeneratedLiveSubtitles(generatedSubtitles);
  if (!normalized.ok) throw new ApiError('invalid_parameters', normalized.messages);
  return getDb().$transaction(async (tx) => {
    await findLiveStreamOrThrow(tx, liveStreamId);
    await tx.liveStream.update({ where: { id: liveStreamId }, data: { generatedSubtitlesJson: normalized.json } });
    await recordLiveStreamEvent(tx, 'video.live_stream.updated', liveStreamId);
    return findLiveStreamOrThrow(tx, liveStreamId);
  });
};
