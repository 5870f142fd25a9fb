import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import type { MediaProbe } from '../../media/ffprobe';
import type { StoredInput } from '../../schemas/asset-settings';
import { findAssetOrThrow } from '../records/asset-record';

const round = (value: number | null) => (value === null ? undefined : Math.round(value * 1e6) / 1e6);

// GET /video/v1/assets/{id}/input-info: the input as submitted and what was found in the file.
export const getAssetInputInfo = async ({ assetId }: { assetId: string }) => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  const asset = await db.asset.findUniqueOrThrow({ where: { id: assetId }, select: { status: true, inputsJson: true, probeJson: true } });
  if (asset.status === 'preparing') throw new ApiError('failed_request', 'Asset is still preparing');
  if (!asset.probeJson) throw new ApiError('failed_request', 'Asset is not ready');
  const [settings, ...watermarks] = JSON.parse(asset.inputsJson) as StoredInput[];
  const probe = JSON.parse(asset.probeJson) as MediaProbe;
  const tracks = [
    ...probe.video
      .filter((video) => !video.isAttachedPicture)
      .map((video) => ({
        type: 'video',
        duration: round(video.durationSeconds ?? probe.durationSeconds),
        encoding: video.codec,
        width: video.displayWidth,
        height: video.displayHeight,
        frame_rate: round(video.frameRate),
      })),
    ...probe.audio.map((audio) => ({
      type: 'audio',
      duration: round(audio.durationSeconds ?? probe.durationSeconds),
      encoding: audio.codec,
      channels: audio.channels,
      sample_rate: audio.sampleRate,
    })),
  ];
  // Each watermark input is echoed too, as Mux does; its image was converted at ingest, so only
  // the settings as submitted are reported for it.
  return [{ settings, file: { container_format: probe.formatName.split(',')[0], tracks } }, ...watermarks.map((input) => ({ settings: input }))];
};
