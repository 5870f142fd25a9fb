import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import { mergeRecordingSettings, withoutStaticRenditions } from '../../schemas/live-stream';
import type { StaticRenditionRequest } from '../../schemas/static-rendition';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow, type StoredLiveStream } from './live-stream-record';

// PUT|DELETE /video/v1/live-streams/{id}/new-asset-settings/static-renditions: the MP4/M4A files
// each future recording gets (mux-api-2.md §1.3). PUT replaces the whole list ("You must provide
// all static renditions desired"); recordings already made keep theirs.

export const setNewAssetStaticRenditions = async ({
  liveStreamId,
  staticRenditions,
}: {
  liveStreamId: string;
  staticRenditions: StaticRenditionRequest[];
}): Promise<StoredLiveStream> =>
  getDb().$transaction(async (tx) => {
    const stream = await findLiveStreamOrThrow(tx, liveStreamId);
    const merged = mergeRecordingSettings(stream.newAssetSettingsJson, { static_renditions: staticRenditions });
    if (!merged.ok) throw new ApiError('invalid_parameters', merged.messages);
    await tx.liveStream.update({ where: { id: liveStreamId }, data: { newAssetSettingsJson: merged.value } });
    await recordLiveStreamEvent(tx, 'video.live_stream.updated', liveStreamId);
    return findLiveStreamOrThrow(tx, liveStreamId);
  });

export const deleteNewAssetStaticRenditions = async ({ liveStreamId }: { liveStreamId: string }): Promise<void> => {
  await getDb().$transaction(async (tx) => {
    const stream = await findLiveStreamOrThrow(tx, liveStreamId);
    const newAssetSettingsJson = withoutStaticRenditions(stream.newAssetSettingsJson);
    if (newAssetSettingsJson === stream.newAssetSettingsJson) return;
    await tx.liveStream.update({ where: { id: liveStreamId }, data: { newAssetSettingsJson } });
    await recordLiveStreamEvent(tx, 'video.live_stream.updated', liveStreamId);
  });
};
