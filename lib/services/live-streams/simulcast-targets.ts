import { getDb } from '../../db/client';
import type { Prisma, SimulcastTarget } from '../../db/generated/client';
import { getEnv } from '../../env';
import { ApiError, notFound } from '../../errors/api-error';
import { normalizeSimulcastTarget, type CreateSimulcastTargetBody, type NewSimulcastTarget } from '../../schemas/simulcast-target';
import { generateId } from '../../utils/ids';
import { validateDestinationUrl } from '../inputs/validate-input-url';
import { recordSimulcastTargetEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow } from './live-stream-record';

// A live stream's simulcast targets (POST/GET/DELETE …/live-streams/{id}/simulcast-targets), each
// reported by its own video.live_stream.simulcast_target.* webhooks. As on Mux, targets are added
// and removed only while the stream is idle: a broadcast's restreams are set when its publisher
// connects (lib/services/live/simulcast-runtime.ts) and are not changed under it.

/** The targets' destinations under the input URLs' address policy (ALLOW_PRIVATE_INPUT_URLS); `field` names each in the request. */
export const validateSimulcastDestinations = async (targets: NewSimulcastTarget[], field: (index: number) => string): Promise<void> => {
  const allowPrivate = getEnv().allowPrivateInputUrls;
  for (const [index, target] of targets.entries()) await validateDestinationUrl(target.url, { allowPrivate, field: field(index) });
};

/** Inserts targets of a stream (their created events are the caller's, which knows where they go among its own). */
export const insertSimulcastTargets = async (
  tx: Prisma.TransactionClient,
  liveStreamId: string,
  targets: NewSimulcastTarget[],
): Promise<SimulcastTarget[]> => {
  const inserted: SimulcastTarget[] = [];
  // Targets are listed oldest first; those sent together get a millisecond apart, so they keep the
  // order they were sent in rather than their random ids'.
  const now = Date.now();
  for (const [index, target] of targets.entries()) {
    inserted.push(await tx.simulcastTarget.create({ data: { id: generateId(), liveStreamId, ...target, createdAt: new Date(now + index) } }));
  }
  return inserted;
};

// A stream between connect and its first media is still `idle`, but its restreams have started.
const assertIdle = async (tx: Prisma.TransactionClient, liveStreamId: string, action: 'created' | 'deleted'): Promise<void> => {
  const stream = await findLiveStreamOrThrow(tx, liveStreamId);
  if (stream.status === 'idle' && stream.connectedAt === null) return;
  const state = stream.status === 'idle' ? 'a publisher is connecting' : `it is ${stream.status}`;
  throw new ApiError('invalid_parameters', `Simulcast targets can only be ${action} while the live stream is idle; ${state}`);
};

export const createSimulcastTarget = async ({ liveStreamId, body }: { liveStreamId: string; body: CreateSimulcastTargetBody }): Promise<SimulcastTarget> => {
  const target = normalizeSimulcastTarget(body);
  await validateSimulcastDestinations([target], () => 'url');
  return getDb().$transaction(async (tx) => {
    await assertIdle(tx, liveStreamId, 'created');
    const [created] = await insertSimulcastTargets(tx, liveStreamId, [target]);
    await recordSimulcastTargetEvent(tx, 'video.live_stream.simulcast_target.created', created!);
    return created!;
  });
};

export const getSimulcastTarget = async ({ liveStreamId, simulcastTargetId }: { liveStreamId: string; simulcastTargetId: string }): Promise<SimulcastTarget> => {
  const db = getDb();
  await findLiveStreamOrThrow(db, liveStreamId);
  const found = await db.simulcastTarget.findFirst({ where: { id: simulcastTargetId, liveStreamId } });
  if (!found) throw notFound('Simulcast target');
  return found;
};

export const deleteSimulcastTarget = async ({ liveStreamId, simulcastTargetId }: { liveStreamId: string; simulcastTargetId: string }): Promise<void> => {
  await getDb().$transaction(async (tx) => {
    await assertIdle(tx, liveStreamId, 'deleted');
    const target = await tx.simulcastTarget.findFirst({ where: { id: simulcastTargetId, liveStreamId } });
    if (!target) throw notFound('Simulcast target');
    // The event carries the target as it was; of two concurrent deletes, the one that did not
    // remove the row throws, which takes its event back out.
    await recordSimulcastTargetEvent(tx, 'video.live_stream.simulcast_target.deleted', target);
    const deleted = await tx.simulcastTarget.deleteMany({ where: { id: simulcastTargetId, liveStreamId } });
    if (deleted.count === 0) throw notFound('Simulcast target');
  });
};
