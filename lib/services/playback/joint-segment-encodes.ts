import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { mediaSegmentPath } from '../../storage/asset-files';
import type { JoinedWork, WorkAttempt } from '../../utils/deadline-scheduler';
import { isStoredHereOrInReachableBucket } from '../storage/shared-storage';
import { expectedEncodeMs, FIXED_SHARE } from './encode-costs';
import type { SegmentRequest } from './playback-plan';
import { encodeKey, inFlightEncodes, segmentProduction, segmentProductionKey, type InFlightEncode } from './runtime';
import { encodeJointSegmentBytes, storeEncodedSegment } from './segment-encode-runs';

// Decode once, encode every rung wanted. Decoding the source window is a large part of a segment
// encode (on a 1080p camera-like source about half of the 270p rung's CPU, a third of the 1080p
// one's), and the same window is decoded again for each rung a segment is wanted in: viewers of one
// asset on different rungs, their prefetches, the ladder fill. So when an encode starts, the
// encodes of other rungs of the same segment still queued ride along: one ffmpeg decodes the window
// once, splits the pictures and encodes each rung, every rung's bytes those of its own encode.
//
// A rider adds its rung's encoding to the run, so the run finishes later: a viewer waiting for the
// starting encode only waits for riders that someone waits for too, or that fit in its slack.
// Across nodes each rider is produced once like any segment: the run takes a rider's lock without
// waiting, and leaves the rider to its own encode where another node holds it.

// Ffmpeg encodes the outputs of one run one after the other for each picture: more riders than this
// and the run's latency grows past what sharing the decode saves.
const MAX_RUNGS_PER_RUN = 3;


type Rider = { flight: InFlightEncode; joined: JoinedWork<void>; target: string; produced: (error?: unknown) => void };

// Queued encodes of the other rungs of this segment that may ride along, most urgent first.
const candidatesFor = (leader: InFlightEncode): InFlightEncode[] => {
  const { assetId, index } = leader.request;
  const found: InFlightEncode[] = [];
  for (const flight of inFlightEncodes().values()) {
    if (flight === leader || flight.assetId !== assetId || flight.request.index !== index || flight.dropped) continue;
    if (flight.request.rung.isBackground || flight.work.state() !== 'queued') continue;
    found.push(flight);
  }
  return found.sort((a, b) => a.work.deadline() - b.work.deadline());
};

// Takes the lock a rider is produced under, without waiting: `produced` ends the production
// (releasing the lock); null when another node produces it or it is already stored.
const claimProduction = (key: string, target: string): Promise<((error?: unknown) => void) | null> =>
  new Promise((resolve) => {
    let produced: (error?: unknown) => void = () => undefined;
    const stored = new Promise<void>((ok, fail) => {
      produced = (error) => (error === undefined ? ok() : fail(error));
    });
    stored.catch(() => undefined);
    segmentProduction()
      .tryRun(segmentProductionKey(key), {
        isAvailable: () => isStoredHereOrInReachableBucket(target),
        produce: () => {
          resolve(produced);
          return stored;
        },
      })
      .then(
        (outcome) => {
          if (outcome !== 'produced') resolve(null);
        },
        () => resolve(null),
      );
  });

/**
 * Takes on the queued encodes of other rungs of the leader's segment that fit (see above). A run at
 * the lowest CPU priority (idle work) takes only idle work: anything more urgent would crawl in it.
 */
const takeRiders = async (leader: InFlightEncode, attempt: WorkAttempt, now: number): Promise<Rider[]> => {
  const mediaSeconds = leader.request.plan.video?.segments[leader.request.index]?.duration ?? 0;
  const waited = leader.work.workClass() === 'deadline';
  let finishMs = expectedEncodeMs(leader.rung, mediaSeconds);
  const riders: Rider[] = [];
  for (const flight of candidatesFor(leader)) {
    if (riders.length + 1 >= MAX_RUNGS_PER_RUN) break;
    // A rider adds its own encoding, not the decode it shares.
    const extraMs = expectedEncodeMs(flight.rung, mediaSeconds, 1 - FIXED_SHARE);
    const fitsSlack = now + finishMs + extraMs <= leader.work.deadline();
    if (waited && flight.work.workClass() !== 'deadline' && !fitsSlack) continue;
    if (attempt.background && flight.work.workClass() !== 'idle') continue;
    const joined = flight.work.joinRunning();
    if (!joined) continue;
    const target = mediaSegmentPath(getEnv().dataDir, flight.assetId, flight.rung, flight.request.index);
    const produced = await claimProduction(encodeKey(flight.assetId, flight.rung, flight.request.index), target);
    if (!produced) {
      joined.giveBack();
      continue;
    }
    flight.ridingWith = leader;
    flight.subject.encodedHere = true;
    riders.push({ flight, joined, target, produced });
    finishMs += extraMs;
  }
  return riders;
};

/**
 * Encodes and stores the leader's segment, together with the other rungs of it that can ride
 * along; without riders it is the plain single-rung encode (`single`).
 */
export const encodeWithRiders = async (
  leader: InFlightEncode,
  attempt: WorkAttempt,
  target: string,
  single: () => Promise<void>,
): Promise<void> => {
  const riders = await takeRiders(leader, attempt, Date.now());
  if (riders.length === 0) return single();
  const requests: SegmentRequest[] = [leader.request, ...riders.map((rider) => rider.flight.request)];
  const together = requests.map(({ rung }) => rung.name);
  try {
    const encoded = await encodeJointSegmentBytes(requests, attempt);
    await Promise.all(
      requests.map(async (request, index) => {
        const segment = encoded[index];
        const rider = riders[index - 1];
        if (!segment) throw new Error(`no output for ${request.rung.name} segment ${request.index}`);
        await storeEncodedSegment(request, segment, rider?.target ?? target, { background: attempt.background, together });
        rider?.produced();
        rider?.joined.finish();
      }),
    );
  } catch (error) {
    // Stopped (preempted, cancelled) or failed: the riders are queued again and encoded on their
    // own, where whatever went wrong shows as their own failure if it is theirs too.
    for (const rider of riders) {
      rider.flight.ridingWith = null;
      rider.produced(error ?? new Error('the joint encode stopped'));
      rider.joined.giveBack();
    }
    getLogger().debug({ err: error, together }, 'joint encode did not complete');
    throw error;
  } finally {
    for (const rider of riders) rider.flight.ridingWith = null;
  }
};
