import { readdir } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { trackOrderBy } from '../../schemas/track';
import { getEnv } from '../../env';
import { notFound } from '../../errors/api-error';
import type { RenditionStatus } from '../../schemas/rendition-status';
import { objectKeyOf, renditionDirectory } from '../../storage/asset-files';
import { sharedStore } from '../storage/shared-storage';
import { readAudioSegmentCount } from '../playback/audio-track';
import { availableRungs } from '../playback/available-rungs';
import type { PlaybackPlan } from '../playback/playback-plan';
import { audioRenditionsOf } from '../playback/audio-renditions';
import { playbackTrackSelect } from '../playback/playback-records';
import { AUDIO_BITRATE } from '../../media/hls/ladder';
import { parseSegmentFileName } from '../../media/names';

// The asset page's ladder: every rendition of the plan and which of its segments are on disk
// (encoded just in time, prefetched, or encoded in the background), read from the rendition folders:
// with S3 storage, this node's and the bucket's (what any node encoded).

const storedSegments = async (directory: string): Promise<number[]> => {
  const local = await readdir(directory).catch(() => [] as string[]);
  const store = sharedStore();
  const names = store ? new Set([...local, ...(await store.listFolder(`${objectKeyOf(getEnv().dataDir, directory)}/`))]) : local;
  return [...names]
    .map(parseSegmentFileName)
    .filter((index) => index !== null)
    .sort((a, b) => a - b);
};

export const getAssetRenditions = async ({ assetId }: { assetId: string }): Promise<RenditionStatus[]> => {
  const asset = await getDb().asset.findUnique({
    where: { id: assetId },
    select: { planJson: true, tracks: { where: { type: 'audio', status: 'ready' }, orderBy: trackOrderBy, select: playbackTrackSelect } },
  });
  if (!asset) throw notFound('Asset');
  if (!asset.planJson) return [];
  const plan = JSON.parse(asset.planJson) as PlaybackPlan;
  const { dataDir } = getEnv();
  const listed = new Set((await availableRungs(assetId, plan)).map((rung) => rung.name));
  const video = await Promise.all(
    plan.rungs.map(async (rung) => ({
      name: rung.name,
      width: rung.width,
      height: rung.height,
      bitrate: rung.videoBitrate,
      background: rung.isBackground,
      listed: listed.has(rung.name),
      segmentCount: plan.video?.segments.length ?? 0,
      encodedSegments: await storedSegments(renditionDirectory(dataDir, assetId, rung.name)),
    })),
  );
  // Every audio track's rendition (the primary's is `audio`), with the real fragment count once encoded (it can differ from the plan's by one).
  const tracks = asset.tracks.map((track) => ({ ...track, type: 'audio' as const }));
  const audio = await Promise.all(
    audioRenditionsOf({ plan, tracks }).map(
      async (rendition): Promise<RenditionStatus> => ({
        name: rendition.name,
        width: null,
        height: null,
        bitrate: AUDIO_BITRATE,
        background: true,
        listed: true,
        segmentCount: (await readAudioSegmentCount(assetId, rendition.name)) ?? rendition.segmentDurations.length,
        encodedSegments: await storedSegments(renditionDirectory(dataDir, assetId, rendition.name)),
      }),
    ),
  );
  return [...video, ...audio];
};
