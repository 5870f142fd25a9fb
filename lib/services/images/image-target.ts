import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import type { MediaProbe } from '../../media/ffprobe';
import type { Size } from '../../media/images/thumbnail-geometry';
import { primaryVideo } from '../../media/media-summary';
import { paramsFromClaims, type ImageParamSource, type Parsed } from '../../schemas/image-params';
import { resolvePlayback, type Cacheability } from '../playback/resolve-playback';
import { sourceInput } from '../inputs/source-input';
import type { OverlayImage } from '../../media/overlay/overlay-filter';
import type { SourceColour } from '../../media/colour/sdr-conversion';
import { overlayImages } from '../playback/overlay-images';
import type { PlannedOverlay } from '../playback/playback-plan';
import type { ImageTargetRequest } from './image-file';

// What every image request starts from: the playback ID resolved with the image audience (status
// codes, signed tokens and playback restrictions are resolvePlayback's), the parameters (for a
// signed ID the token's claims, never the query string, as with Mux), and the video they apply to.

export type VideoTimeline = { duration: number; frameRate: number };

export type ImageTarget = {
  assetId: string;
  playbackId: string;
  signed: boolean;
  cacheability: Cacheability;
  readyAt: Date;
  token: string | null;
  params: ImageParamSource;
  video: VideoTimeline;
  /** Burned into every image too, as into the video: a thumbnail shows what the viewer sees. */
  overlays: PlannedOverlay[];
  /** An HDR or wide-gamut source: images are converted to SDR BT.709 as the video is. */
  sourceColour?: SourceColour;
};

export const resolveImageTarget = async ({
  playbackId,
  access,
  query,
}: ImageTargetRequest): Promise<ImageTarget> => {
  const { assetId, plan, signed, claims, cacheability, readyAt } = await resolvePlayback({ playbackId, access });
  if (!plan.video) throw new ApiError('not_found', 'This asset has no video track, so it has no thumbnails, animated images or storyboards');
  return {
    assetId,
    playbackId,
    signed,
    cacheability,
    readyAt,
    token: access.token,
    params: signed ? paramsFromClaims(claims) : query,
    video: { duration: plan.video.duration, frameRate: plan.video.frameRate },
    overlays: plan.overlays ?? [],
    ...(plan.sourceColour && { sourceColour: plan.sourceColour }),
  };
};

export const validParams = <T>(parsed: Parsed<T>): T => {
  if (!parsed.ok) throw new ApiError('invalid_parameters', parsed.messages);
  return parsed.value;
};

export type VideoSource = VideoTimeline & { path: string; display: Size; overlays: OverlayImage[]; sourceColour?: SourceColour };

// The display size (after rotation and pixel aspect ratio) comes from the probe made at ingest.
// Read only when something has to be generated or laid out, not for images already on disk.
export const loadVideoSource = async (target: ImageTarget): Promise<VideoSource> => {
  const asset = await getDb().asset.findUnique({ where: { id: target.assetId }, select: { probeJson: true } });
  const video = asset?.probeJson ? primaryVideo(JSON.parse(asset.probeJson) as MediaProbe) : null;
  if (!video) throw new ApiError('not_found', 'Asset not found');
  return {
    ...target.video,
    path: await sourceInput(target.assetId),
    display: { width: video.displayWidth, height: video.displayHeight },
    overlays: await overlayImages(target.assetId, target),
    sourceColour: target.sourceColour,
  };
};
