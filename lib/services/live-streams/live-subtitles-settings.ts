import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import {
  normalizeEmbeddedLiveSubtitles,
  normalizeGeneratedLiveSubtitles,
  type EmbeddedLiveSubtitlesBody,
  type GeneratedLiveSubtitlesBody,
} from '../../schemas/live-captions';
import { embeddedCaptionsName } from '../../schemas/live-stream';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow, type StoredLiveStream } from './live-stream-record';

// PUT /video/v1/live-streams/{id}/generated-subtitles and …/embedded-subtitles: each replaces the
// stream's list (`[]` for none). A broadcast takes them when it starts, so a change reaches the next one.

type Normalized = { ok: true; json: string | null } | { ok: false; messages: string[] };

const saveSubtitles = (liveStreamId: string, normalized: Normalized, column: 'generatedSubtitlesJson' | 'embeddedSubtitlesJson'): Promise<StoredLiveStream> => {
  if (!normalized.ok) throw new ApiError('invalid_parameters', normalized.messages);
  return getDb().$transaction(async (tx) => {
    await findLiveStreamOrThrow(tx, liveStreamId);
    await tx.liveStream.update({ where: { id: liveStreamId }, data: { [column]: normalized.json } });
    await recordLiveStreamEvent(tx, 'video.live_stream.updated', liveStreamId);
    return findLiveStreamOrThrow(tx, liveStreamId);
  });
};

export const setGeneratedLiveSubtitles = ({ liveStreamId, generatedSubtitles }: { liveStreamId: string; generatedSubtitles: GeneratedLiveSubtitlesBody }): Promise<StoredLiveStream> =>
  saveSubtitles(liveStreamId, normalizeGeneratedLiveSubtitles(generatedSubtitles), 'generatedSubtitlesJson');

export const setEmbeddedLiveSubtitles = ({ liveStreamId, embeddedSubtitles }: { liveStreamId: string; embeddedSubtitles: EmbeddedLiveSubtitlesBody }): Promise<StoredLiveStream> =>
  saveSubtitles(liveStreamId, normalizeEmbeddedLiveSubtitles(embeddedSubtitles, embeddedCaptionsName), 'embeddedSubtitlesJson');
