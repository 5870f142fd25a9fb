import type { Db } from '../../db/client';
import type { Prisma } from '../../db/generated/client';
import { serializeLiveStream } from '../../schemas/live-stream';
import { serializeSimulcastTarget, type SimulcastTargetRecord } from '../../schemas/simulcast-target';
import { recordWebhookEvent, type WebhookEventType } from '../webhooks/record-webhook-event';

type DbClient = Db | Prisma.TransactionClient;

export const liveStreamInclude = {
  playbackIds: { orderBy: { createdAt: 'asc' } },
  simulcastTargets: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
} satisfies Prisma.LiveStreamInclude;

// Records a `video.live_stream.*` event with the stream as it is now in `db` (call it inside the
// transaction that made the change). `connected`/`recording` (and `warning` for
// video.live_stream.warning) are the extra fields Mux puts in the data of these events.
export const recordLiveStreamEvent = async (
  db: DbClient,
  type: Exclude<Extract<WebhookEventType, `video.live_stream.${string}`>, `video.live_stream.simulcast_target.${string}`>,
  liveStreamId: string,
  extra: { connected?: boolean; recording?: boolean; warning?: { type: string; message: string } } = {},
): Promise<void> => {
  const stream = await db.liveStream.findUnique({ where: { id: liveStreamId }, include: liveStreamInclude });
  if (!stream) return;
  await recordWebhookEvent(db, { type, object: { type: 'live_stream', id: liveStreamId }, data: { ...serializeLiveStream(stream), ...extra } });
};

/** A `video.live_stream.simulcast_target.*` event: the target as the API shows it, plus its live stream. */
export const recordSimulcastTargetEvent = (
  db: DbClient,
  type: Extract<WebhookEventType, `video.live_stream.simulcast_target.${string}`>,
  target: SimulcastTargetRecord & { liveStreamId: string },
): Promise<void> =>
  recordWebhookEvent(db, { type, object: { type: 'simulcast_target', id: target.id }, data: { ...serializeSimulcastTarget(target), live_stream_id: target.liveStreamId } });
