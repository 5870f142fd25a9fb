import { rm } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { ApiError, notFound } from '../../errors/api-error';
import { notifyJobEnqueued } from '../../jobs/signals';
import { getLogger } from '../../log';
import { generatedSubtitleProblems } from '../../schemas/asset-settings';
import {
  canonicalLanguageCode,
  trackSelect,
  type CreateTrackBody,
  type GeneratedSubtitleRequest,
  type TrackRecord,
  type UpdateTrackBody,
} from '../../schemas/track';
import { audioRenditionName } from '../../media/names';
import { objectKeyOf, renditionDirectory, trackDirectory } from '../../storage/asset-files';
import { assetInclude, findAssetOrThrow } from '../records/asset-record';
import { validateInputUrl } from '../inputs/validate-input-url';
import { deleteSharedPrefix } from '../storage/shared-storage';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { assetJson } from '../master/master-links';
import { insertTracks } from './insert-tracks';
import { recordTrackEvent } from './track-events';
import { announceTracksChanged } from './tracks-changed';

// The tracks API (mux-api-2.md §3.2): add a subtitle or audio file, generate captions from an
// audio track, rename, delete.

const SMART_ONLY = 'available with video_quality "plus" or "premium" only, not "basic" (encoding_tier "baseline")';

const readyAsset = async (assetId: string) => {
  const asset = await findAssetOrThrow(getDb(), assetId);
  if (asset.status !== 'ready') throw new ApiError('invalid_parameters', `Tracks can be added once the asset is ready; it is ${asset.status}`);
  return asset;
};

/** POST /video/v1/assets/{ASSET_ID}/tracks */
export const createTrack = async ({ assetId, body }: { assetId: string; body: CreateTrackBody }): Promise<TrackRecord> => {
  const asset = await readyAsset(assetId);
  if (body.type === 'audio' && asset.encodingTier === 'baseline') throw new ApiError('invalid_parameters', `Additional audio tracks are ${SMART_ONLY}`);
  if (body.type === 'audio' && !asset.tracks.some((track) => track.type === 'audio' && track.primary) && !asset.tracksJson?.includes('"video"')) {
    throw new ApiError('invalid_parameters', 'This asset has neither video nor a primary audio track to align an audio track to');
  }
  if (body.type === 'audio' && (body.text_type !== undefined || body.closed_captions !== undefined)) {
    throw new ApiError('invalid_parameters', 'text_type and closed_captions only apply to text tracks');
  }
  const url = await validateInputUrl(body.url, { allowPrivate: getEnv().allowPrivateInputUrls, field: 'url' });
  const [created] = await getDb().$transaction((tx) =>
    insertTracks(tx, assetId, [
      body.type === 'text'
        ? { kind: 'text', url, languageCode: body.language_code, name: body.name, closedCaptions: body.closed_captions, passthrough: body.passthrough }
        : { kind: 'audio', url, languageCode: body.language_code, name: body.name, passthrough: body.passthrough },
    ]),
  );
  notifyJobEnqueued();
  return created!;
};

/** POST /video/v1/assets/{ASSET_ID}/tracks/{TRACK_ID}/generate-subtitles */
export const generateSubtitles = async ({
  assetId,
  trackId,
  requests,
}: {
  assetId: string;
  trackId: string;
  requests: GeneratedSubtitleRequest[];
}): Promise<TrackRecord[]> => {
  const asset = await readyAsset(assetId);
  const audio = asset.tracks.find((track) => track.id === trackId);
  if (!audio) throw notFound('Track');
  if (audio.type !== 'audio') throw new ApiError('invalid_parameters', 'Subtitles are generated from an audio track; this track is a text track');
  if (audio.status !== 'ready') throw new ApiError('invalid_parameters', `The audio track is ${audio.status}; subtitles are generated from a ready audio track`);
  if (asset.encodingTier === 'baseline') throw new ApiError('invalid_parameters', `Auto-generated captions are ${SMART_ONLY}`);
  const problems = generatedSubtitleProblems(requests, 'generated_subtitles');
  if (problems.length > 0) throw new ApiError('invalid_parameters', problems);
  const created = await getDb().$transaction((tx) =>
    insertTracks(
      tx,
      assetId,
      requests.map((request) => ({
        kind: 'generated' as const,
        sourceTrackId: trackId,
        languageCode: request.language_code ?? 'en',
        name: request.name,
        passthrough: request.passthrough,
      })),
    ),
  );
  notifyJobEnqueued();
  return created;
};

const findTrack = async (assetId: string, trackId: string): Promise<TrackRecord> => {
  await findAssetOrThrow(getDb(), assetId);
  const track = await getDb().track.findFirst({ where: { id: trackId, assetId }, select: trackSelect });
  if (!track) throw notFound('Track');
  return track;
};

/** PATCH /video/v1/assets/{ASSET_ID}/tracks/{TRACK_ID} */
export const updateTrack = async ({ assetId, trackId, body }: { assetId: string; trackId: string; body: UpdateTrackBody }): Promise<TrackRecord> => {
  const track = await findTrack(assetId, trackId);
  if (body.closed_captions !== undefined && track.type !== 'text') throw new ApiError('invalid_parameters', 'closed_captions only applies to text tracks');
  const name = body.name?.trim();
  if (name !== undefined && name !== track.name) {
    const clash = await getDb().track.findFirst({ where: { assetId, type: track.type, name, NOT: { id: trackId } }, select: { id: true } });
    if (clash) throw new ApiError('invalid_parameters', `name: another ${track.type} track of this asset is already called "${name}"`);
  }
  const updated = await getDb().$transaction(async (tx) => {
    const row = await tx.track.update({
      where: { id: trackId },
      data: {
        ...(name !== undefined && { name }),
        ...(body.language_code !== undefined && { languageCode: canonicalLanguageCode(body.language_code) ?? body.language_code }),
        ...(body.closed_captions !== undefined && { closedCaptions: body.closed_captions }),
        ...(body.passthrough !== undefined && { passthrough: body.passthrough }),
      },
      select: trackSelect,
    });
    const asset = await tx.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
    await recordWebhookEvent(tx, { type: 'video.asset.updated', object: { type: 'asset', id: assetId }, data: assetJson(asset) });
    return row;
  });
  await announceTracksChanged(assetId);
  return updated;
};

/** DELETE /video/v1/assets/{ASSET_ID}/tracks/{TRACK_ID}: text tracks and audio tracks other than the primary. */
export const deleteTrack = async ({ assetId, trackId }: { assetId: string; trackId: string }): Promise<void> => {
  const track = await findTrack(assetId, trackId);
  if (track.type === 'audio' && track.primary) throw new ApiError('invalid_parameters', 'The primary audio track cannot be deleted');
  await getDb().$transaction(async (tx) => {
    const deleted = await tx.track.deleteMany({ where: { id: trackId } });
    if (deleted.count === 1) await recordTrackEvent(tx, 'video.asset.track.deleted', assetId, { ...track, status: 'deleted' });
  });
  await announceTracksChanged(assetId);
  await removeTrackFiles(assetId, track);
};

// A job still preparing the track finds its row gone and throws its files away too.
export const removeTrackFiles = async (assetId: string, track: { id: string; type: string; primary: boolean }): Promise<void> => {
  const dataDir = getEnv().dataDir;
  const folders = [trackDirectory(dataDir, assetId, track.id), ...(track.type === 'audio' ? [renditionDirectory(dataDir, assetId, audioRenditionName(track))] : [])];
  for (const folder of folders) {
    await rm(folder, { recursive: true, force: true, maxRetries: 3 }).catch((error: unknown) =>
      getLogger().warn({ err: error, folder }, 'removing a deleted track’s files failed'),
    );
    await deleteSharedPrefix(`${objectKeyOf(dataDir, folder)}/`);
  }
};
