import { setTimeout as delay } from 'node:timers/promises';
import { ApiError, notFound } from '../../errors/api-error';
import { getLogger } from '../../log';
import { recordSegmentCacheRequest } from '../../metrics/record';
import { AUDIO_SEGMENT_SECONDS } from '../../media/hls/audio-plan';
import type { Rung } from '../../media/hls/ladder';
import { INIT_FILE, parseSegmentFileName } from '../../media/names';
import { climbDoesNotFit, exceedsFairShare, floorRungOf, shouldSteerToCheaperRung } from './affordable-rungs';
import { waitForAudioFile } from './audio-track';
import { audioRenditionOf } from './audio-renditions';
import { mediaSegmentPath } from '../../storage/asset-files';
import { getEnv } from '../../env';
import { knownPublicUrl, publicUrlInBucket } from '../storage/bucket-redirects';
import type { PlaybackPlan } from './playback-plan';
import type { DemandContext } from './encode-demand';
import { peekPublicPlayback, resolvePlayback, type Cacheability, type PlaybackAccess, type PlaybackFile } from './resolve-playback';
import { ENCODE_PRIORITY, encodeDemand, releaseOtherRungPrefetches, segmentCache, viewerStreams } from './runtime';
import { ensureInitSegment, ensureVideoSegment, prefetchFollowing, storedVideoSegment } from './video-segments';
import type { ViewerStream } from './viewer-streams';
import { recordWatching } from './watched-assets';

/** A file to send, or (S3_PUBLIC_URL) where to send the player for it instead. */
export type RenditionFile = PlaybackFile | { redirectUrl: string; cacheability: Cacheability };

// GET /{PLAYBACK_ID}/{rendition}/init.mp4 and /{PLAYBACK_ID}/{rendition}/{n}.m4s: served from
// storage, or encoded just in time on the first request.
// A viewer's request for an audio segment: its progress, and so when its next one is due. Every
// audio track is one stream kind: a viewer switching language continues its audio stream.
const noteAudioRequest = ({ client, assetId, rendition, index, now }: { client: string; assetId: string; rendition: string; index: number; now: number }) =>
  viewerStreams().note({ clientKey: client, assetId, track: 'audio', rung: rendition, index, start: index * AUDIO_SEGMENT_SECONDS, now });

// What a request for a video segment tells, stored or not: the viewer's progress (and so its
// deadline), what is watched, a rung switch, and the rendition cache's hit rate and recency.
const noteVideoRequest = ({
  client,
  assetId,
  plan,
  rung,
  index,
  start,
  now,
}: {
  client: string;
  assetId: string;
  plan: PlaybackPlan;
  rung: Rung;
  index: number;
  start: number;
  now: number;
}) => {
  const noted = viewerStreams().note({ clientKey: client, assetId, track: 'video', rung: rung.name, index, start, now });
  recordWatching({ assetId, plan, rung: rung.name, viewer: noted.stream.id, now });
  const stored = storedVideoSegment(assetId, rung, index);
  // Rungs above 1080p are not in the rendition cache (see isEvictableSegment).
  if (!rung.isBackground) recordSegmentCacheRequest(stored ? 'hit' : 'miss');
  return { ...noted, stored };
};

/**
 * A playback worker sent a stored file of a public playback ID from its own cache (see
 * lib/http/edge/): noted here as if this process had answered it, so deadlines, what is watched,
 * the rendition cache's recency and prefetching work alike.
 */
export const noteFileServedByWorker = ({ playbackId, rendition, file, client }: { playbackId: string; rendition: string; file: string; client: string }): void => {
  const target = peekPublicPlayback(playbackId);
  const index = parseSegmentFileName(file) ?? Number.NaN;
  if (!target || !Number.isInteger(index)) return;
  const { assetId, plan } = target;
  const now = Date.now();
  if (audioRenditionOf(target, rendition)) {
    noteAudioRequest({ client, assetId, rendition, index, now });
    return;
  }
  const rung = plan.rungs.find((candidate) => candidate.name === rendition);
  const segment = plan.video?.segments[index];
  if (!rung || !segment) return;
  const { stream, stored, switchedFrom } = noteVideoRequest({ client, assetId, plan, rung, index, start: segment.start, now });
  if (switchedFrom !== null) releaseOtherRungPrefetches(stream);
  if (stored) prefetchFollowing({ assetId, plan, rung, index, stream });
};

// A viewer that switched rungs no longer needs what was prefetched for it on the old one; on a
// small box that encode beside the switch's cold segment could double its time. Only once the
// switch is served: a refused one sends the viewer back to the rung it had.
const servingSwitch = (stream: ViewerStream, switchedFrom: string | null): void => {
  if (switchedFrom !== null) releaseOtherRungPrefetches(stream);
};

export const getRenditionFile = async ({
  playbackId,
  rendition,
  file,
  access,
  client = '',
  viewer,
}: {
  playbackId: string;
  rendition: string;
  file: string;
  access: PlaybackAccess;
  // Who asks (address and User-Agent): with the order of its requests, what tells viewers apart
  // (see viewer-streams.ts), so each encode gets the deadline of the viewer waiting for it.
  client?: string;
  // The HTTP request's signal, aborted when the player gives up on this request; made only when
  // a segment has to be encoded, since a stored one is answered at once.
  viewer?: () => AbortSignal;
}): Promise<RenditionFile> => {
  const target = await resolvePlayback({ playbackId, access });
  const { assetId, plan, cacheability, signed, readyAt } = target;
  // Files of public playback IDs may be fetched from the bucket's public URL once they are in it;
  // signed ones are always answered here, where their token is checked.
  const redirectable = !signed && cacheability.scope === 'public';
  const answer = (path: string): RenditionFile => {
    const redirectUrl = redirectable ? knownPublicUrl(path) : null;
    return redirectUrl ? { redirectUrl, cacheability } : { path, cacheability, lastModified: readyAt };
  };
  const isInit = file === INIT_FILE;
  const segmentIndex = parseSegmentFileName(file);
  if (!isInit && segmentIndex === null) throw notFound('Segment');
  const index = isInit ? null : segmentIndex;

  const audio = audioRenditionOf(target, rendition);
  if (audio) {
    if (index !== null && index >= audio.segmentDurations.length + 1) throw notFound('Segment');
    const now = Date.now();
    const deadline = index === null ? now : noteAudioRequest({ client, assetId, rendition, index, now }).deadline;
    const found = await waitForAudioFile({ assetId, rendition: audio, index, deadline });
    if (!found) throw notFound('Segment');
    return answer(found);
  }

  const rung = plan.rungs.find((candidate) => candidate.name === rendition);
  if (!rung || !plan.video) throw notFound('Rendition');
  if (index === null) return answer(await ensureInitSegment({ assetId, plan, rung }));
  const segment = plan.video.segments[index];
  if (!segment) throw notFound('Segment');
  const now = Date.now();
  const noted = noteVideoRequest({ client, assetId, plan, rung, index, start: segment.start, now });
  const { stream, deadline, isNew, advanced, playing, stored, switchedFrom } = noted;
  if (stored) {
    servingSwitch(stream, switchedFrom);
    prefetchFollowing({ assetId, plan, rung, index, stream });
    return answer(stored);
  }
  // Not on this node: a player that can be sent to the bucket is sent there without a download.
  const inBucket = redirectable ? await publicUrlInBucket(mediaSegmentPath(getEnv().dataDir, assetId, rung.name, index)) : null;
  if (inBucket) {
    servingSwitch(stream, switchedFrom);
    prefetchFollowing({ assetId, plan, rung, index, stream });
    return { redirectUrl: inBucket, cacheability };
  }
  // Only a playing viewer is refused: a starting one was offered affordable rungs by the
  // multivariant playlist, and hls.js 1.7 stalls on a refusal that lands while its first init
  // segment loads (e2e/playback/steering.spec.ts).
  const refused =
    (!isNew && shouldSteerToCheaperRung({ assetId, plan, rung, index, deadline })) ||
    (!isNew && switchedFrom !== null && climbDoesNotFit({ streamId: stream.id, client, assetId, plan, rung, from: switchedFrom, index, deadline, now, advanced: advanced || playing })) ||
    (advanced && exceedsFairShare({ assetId, plan, rung, index, now }));
  if (refused) {
    viewerStreams().revert(noted);
    throw steerToCheaperRung(rung, index);
  }
  servingSwitch(stream, switchedFrom);
  // A player asking for a later segment than the first got the earlier ones: it plays. (Not a
  // request that merely continues a stream: players behind one address asking for the same first
  // segment are one stream.)
  const demandContext = { client, floorRung: floorRungOf(plan), playing: index > 0 };
  const signal = viewer?.();
  try {
    const admitted = encodeDemand().admit(stream.id, assetId, rung.name, now, demandContext) || (await waitForAdmission(stream.id, assetId, rung.name, demandContext, signal));
    const found = await ensureVideoSegment({
      assetId,
      plan,
      rung,
      index,
      priority: ENCODE_PRIORITY.onDemand,
      deadline,
      viewer: signal,
      notAdmitted: !admitted,
    });
    // A viewer still waiting for admission gets what it asks for when an encoder is free, no more.
    if (admitted) prefetchFollowing({ assetId, plan, rung, index, stream });
    // The viewer waited for this node's encode: the bytes are here, a redirect would only add a trip.
    return { path: found, cacheability, lastModified: readyAt };
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

// A viewer the encoders cannot promise real time waits for that promise before its segment is
// encoded: a player that starts plays on whatever arrives, and stalls whenever the encoders fall
// behind it (capacity bench, 8 fresh assets on 2 cores: viewers served from spare slots before
// they were admitted stalled up to two thirds of their watch time). A longer start is the better
// wait. Before any cost is measured the wait lasts until the first encode has told one (about a
// second: only the first viewer is promised anything until then). After so long it is served as
// before, when an encoder is free: hls.js gives a fragment up after 10 s without a first byte and
// asks again (a new wait), and fails after a few of those.
const ADMISSION_WAIT_MS = 60_000;
const ADMISSION_POLL_MS = 250;

const waitForAdmission = async (streamId: string, assetId: string, rung: string, context: DemandContext, signal: AbortSignal | undefined): Promise<boolean> => {
  if (context.floorRung === undefined) return false;
  const giveUpAt = Date.now() + ADMISSION_WAIT_MS;
  while (Date.now() < giveUpAt) {
    await delay(ADMISSION_POLL_MS, undefined, { signal });
    if (encodeDemand().admit(streamId, assetId, rung, Date.now(), context)) return true;
  }
  return false;
};

// Players take a 4xx on a segment as "this variant is failing" and fetch the same segment from
// the next lower one without retrying (hls.js's error controller; a 5xx would be retried on the
// same variant first), so the refusal is answered at once and costs the viewer one round trip.
const steerToCheaperRung = (rung: Rung, index: number) =>
  new ApiError(
    'too_many_requests',
    `Segment ${index} of ${rung.name} cannot be encoded in time right now; a lower rendition can. Retry this rendition later.`,
    { 'retry-after': String(STEER_RETRY_AFTER_SECONDS) },
  );

// How long a player should stay off a rung it was steered away from: about how long an overload
// from a burst of new viewers lasts.
const STEER_RETRY_AFTER_SECONDS = 10;

// The file named by getRenditionFile was gone when it was opened (deleted behind the rendition
// cache's back): forget it, so the next look finds it missing and encodes it again.
export const forgetMissingRenditionFile = (filePath: string): void => {
  segmentCache().forget(filePath);
};
