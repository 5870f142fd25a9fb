import { getDb } from '../../db/client';
import type { SimulcastErrorSeverity, SimulcastTargetStatus } from '../../schemas/simulcast-target';
import { recordSimulcastTargetEvent } from './live-stream-events';

// The database side of a broadcast's restreams (simulcast-runtime.ts runs them): which targets a
// stream has, and each target's status as Mux reports it, with its webhook.

export type { SimulcastTargetStatus };

/** The stream's simulcast targets, oldest first, as the restreamer needs them. */
export const simulcastTargetsOf = async (liveStreamId: string): Promise<Array<{ id: string; url: string; streamKey: string | null }>> =>
  getDb().simulcastTarget.findMany({
    where: { liveStreamId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, url: true, streamKey: true },
  });

/**
 * Sets a target's status and records its video.live_stream.simulcast_target.{status}, only when
 * the status (or, while errored, the severity) changes: the restreamer reports `starting` before
 * every attempt, and subscribers hear of a change once. `errored` without a severity is `normal`
 * (retried); the severity goes when the target leaves `errored`. A target deleted meanwhile is left
 * deleted.
 */
export const markSimulcastTargetStatus = async (targetId: string, status: SimulcastTargetStatus, errorSeverity?: SimulcastErrorSeverity): Promise<void> => {
  const severity = status === 'errored' ? (errorSeverity ?? 'normal') : null;
  await getDb().$transaction(async (tx) => {
    const current = await tx.simulcastTarget.findUnique({ where: { id: targetId } });
    if (!current || (current.status === status && current.errorSeverity === severity)) return;
    // Conditional on what was read, so of two concurrent reports of one change only one records it.
    const changed = await tx.simulcastTarget.updateMany({
      where: { id: targetId, status: current.status, errorSeverity: current.errorSeverity },
      data: { status, errorSeverity: severity },
    });
    if (changed.count === 0) return;
    await recordSimulcastTargetEvent(tx, `video.live_stream.simulcast_target.${status}`, { ...current, status, errorSeverity: severity });
  });
};
