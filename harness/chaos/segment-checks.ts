import { getUnrecorded, mapLimit, readObjectSafely, sha256, shuffled } from './check-io';
import type { ChaosInvariants } from './invariant-report';
import type { ChaosTarget } from './target';
import type { SegmentObservation } from './workload-record';

// After the faults: what viewers were served through the balancer must be what each app node
// serves on its own and what the bucket holds, and the bucket must hold no empty or half-written
// objects. Both checks take a sample so they stay short on a 2-core machine.

const NODE_SAMPLE_PATHS = 60;
const BUCKET_ASSETS = 20;
const BUCKET_OBJECT_READS = 2_000;

// Something a crash could leave under a final-looking key: lib/storage/atomic-file.ts writes
// `<name>.<12 hex>.tmp` and renames it; other tools use .part/.partial.
export const TEMPORARY_KEY = /(\.[0-9a-f]{12}\.tmp|\.tmp|\.temp|\.part|\.partial|~)$/i;

/** A sample of the served paths (conflicted ones first), fetched from each app node directly. */
// A node still busy after the faults may steer a segment it would have to encode to a cheaper
// rung (429 + Retry-After, see get-rendition-file.ts): a player comes back later, and so does this.
const STEERED_RETRIES = 3;
const getSteeredAside = async (url: string): Promise<{ status: number; body: Buffer }> => {
  for (let attempt = 0; ; attempt++) {
    const answer = await getUnrecorded(url);
    if (answer.status !== 429 || attempt === STEERED_RETRIES) return answer;
    await new Promise((resolve) => setTimeout(resolve, 10_000));
  }
};

export const checkNodes = async (target: ChaosTarget, firstSeen: Map<string, SegmentObservation>, conflictedPaths: string[]): Promise<ChaosInvariants['segments']['nodes']> => {
  const conflicted = new Set(conflictedPaths);
  const sample = [...conflictedPaths, ...shuffled([...firstSeen.keys()].filter((path) => !conflicted.has(path)))].slice(0, NODE_SAMPLE_PATHS);
  const figures: ChaosInvariants['segments']['nodes'] = { sampledPaths: sample.length, fetches: 0, matched: 0, mismatched: [], failed: [] };
  const fetches = sample.flatMap((path) => target.appUrls().map((node) => ({ path, node })));
  // Two at a time: a node may have to encode a segment it has not served yet.
  await mapLimit(fetches, 2, async ({ path, node }) => {
    const { status, body } = await getSteeredAside(`${node}${path}`);
    figures.fetches++;
    if (status !== 200) figures.failed.push(`${path} from ${node}: ${status === 0 ? 'no answer' : status}`);
    else if (sha256(body) === firstSeen.get(path)?.sha256) figures.matched++;
    else figures.mismatched.push(`${path} from ${node}`);
  });
  return figures;
};

/** The objects of the watched assets: none empty, none temporary, segments as served. */
export const checkBucket = async (
  target: ChaosTarget,
  observations: SegmentObservation[],
  firstSeen: Map<string, SegmentObservation>,
): Promise<ChaosInvariants['segments']['bucket']> => {
  // `/<playbackId>/<rendition>/<file>` is stored as `assets/<assetId>/hls/<rendition>/<file>`.
  const servedByKey = new Map<string, SegmentObservation>();
  for (const [path, observation] of firstSeen) {
    const [, , rendition, file] = path.split('/');
    if (rendition && file) servedByKey.set(`assets/${observation.assetId}/hls/${rendition}/${file}`, observation);
  }
  const assetIds = shuffled([...new Set(observations.map((observation) => observation.assetId))]).slice(0, BUCKET_ASSETS);
  const figures: ChaosInvariants['segments']['bucket'] = {
    assetsChecked: assetIds.length,
    objects: 0,
    emptyObjects: [],
    temporaryObjects: [],
    segmentMismatches: [],
    segmentsCompared: 0,
    notRead: 0,
  };
  const keys = (await mapLimit(assetIds, 4, (assetId) => target.listKeys(`assets/${assetId}/`).catch(() => [] as string[]))).flat();
  figures.objects = keys.length;
  figures.temporaryObjects = keys.filter((key) => TEMPORARY_KEY.test(key));
  figures.notRead = Math.max(0, keys.length - BUCKET_OBJECT_READS);
  await mapLimit(keys.slice(0, BUCKET_OBJECT_READS), 4, async (key) => {
    const bytes = await readObjectSafely(target, key);
    if (bytes?.length === 0) figures.emptyObjects.push(key);
    const served = servedByKey.get(key);
    if (bytes && served) {
      figures.segmentsCompared++;
      if (sha256(bytes) !== served.sha256) figures.segmentMismatches.push(key);
    }
  });
  return figures;
};
