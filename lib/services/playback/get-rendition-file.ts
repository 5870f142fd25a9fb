import { ApiError, notFound } from '../../errors/api-error';
import { getLogger } from '../../log';
import { AUDIO_RENDITION, waitForAudioFile } from './audio-track';
import { resolvePlayback, type PlaybackAccess, type PlaybackFile } from './resolve-playback';
import { ENCODE_PRIORITY, segmentCache } from './runtime';
import { dropOtherRungPrefetches, ensureInitSegment, ensureVideoSegment, prefetchFollowing, storedVideoSegment } from './video-segments';

const SEGMENT_FILE = /^(\d{1,6})\.m4s$/;

// GET /{PLAYBACK_ID}/{rendition}/init.mp4 and /{PLAYBACK_ID}/{rendition}/{n}.m4s: served from
// storage, or encoded just in time on the first request.
export const getRenditionFile = async ({
  playbackId,
  rendition,
  file,
  access,
  viewer,
}: {
  playbackId: string;
  rendition: string;
  file: string;
  access: PlaybackAccess;
  // The HTTP request's signal, aborted when the player gives up on this request; made only when
  // a segment has to be encoded, since a stored one is answered at once.
  viewer?: () => AbortSignal;
}): Promise<PlaybackFile> => {
  const { assetId, plan, cacheability } = await resolvePlayback({ playbackId, access });
  const isInit = file === 'init.mp4';
  const segmentMatch = SEGMENT_FILE.exec(file);
  if (!isInit && !segmentMatch?.[1]) throw notFound('Segment');
  const index = isInit ? null : Number(segmentMatch?.[1]);

  if (rendition === AUDIO_RENDITION && plan.audio) {
    if (index !== null && index >= plan.audio.segmentDurations.length + 1) throw notFound('Segment');
    const found = await waitForAudioFile({ assetId, plan, index });
    if (!found) throw notFound('Segment');
    return { path: found, cacheability };
  }

  const rung = plan.rungs.find((candidate) => candidate.name === rendition);
  if (!rung || !plan.video) throw notFound('Rendition');
  if (index === null) return { path: await ensureInitSegment({ assetId, plan, rung }), cacheability };
  if (index >= plan.video.segments.length) throw notFound('Segment');
  dropOtherRungPrefetches({ assetId, rung });
  const stored = storedVideoSegment(assetId, rung, index);
  if (stored) {
    prefetchFollowing({ assetId, plan, rung, index });
    return { path: stored, cacheability };
  }
  const signal = viewer?.();
  try {
    const found = await ensureVideoSegment({ assetId, plan, rung, index, priority: ENCODE_PRIORITY.onDemand, viewer: signal });
    prefetchFollowing({ assetId, plan, rung, index });
    return { path: found, cacheability };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // Nobody is listening for the answer, and the encode was stopped on purpose.
    if (signal?.aborted) throw new ApiError('service_unavailable', 'The request was abandoned');
    getLogger().error({ err: error, assetId, rung: rung.name, index }, 'segment encode failed');
    throw new ApiError('service_unavailable', `Segment ${index} of ${rung.name} could not be encoded; retry shortly`, {
      'retry-after': '1',
    });
  }
};

// The file named by getRenditionFile was gone when it was opened (deleted behind the rendition
// cache's back): forget it, so the next look finds it missing and encodes it again.
export const forgetMissingRenditionFile = (filePath: string): void => {
  segmentCache().forget(filePath);
};
