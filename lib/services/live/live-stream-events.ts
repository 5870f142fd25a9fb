import type { Db } from '../../db/client';
import type { Prisma } from '../../db/generated/client';
import { serializeLiveStream } from '../../schemas/live-stream';
import { recordWebhookEvent, type WebhookEventType } from '../webhooks/record-webhook-event';

type DbClient = Db | Prisma.TransactionClient;

export const liveStreamInclude = { playbackIds: { orderBy: { createdAt: 'asc' } } } as const;

// Records a `video.live_stream.*` event with the stream as it is now in `db` (call it inside the
// transaction that made the change). `connected`/`recording` are the extra fields Mux puts in
// the data of these events.
export const recordLiveStreamEvent = async (
  db: DbClient,
  type: Extract<WebhookEventType, `video.live_stream.${string}`>,
  liveStreamId: string,
  extra: { connected?: boolean; recording?: boolean } = {},
): Promise<void> => {
  const stream = await db.liveStream.findUnique({ where: { id: liveStreamId }, include: liveStreamInclude });
  if (!stream) return;
  await recordWebhookEvent(db, { type, object: { type: 'live_stream', id: liveStreamId }, data: { ...serializeLiveStream(stream), ...extra } });
};
