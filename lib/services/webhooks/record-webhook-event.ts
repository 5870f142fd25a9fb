import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client';
import type { Prisma } from '../../db/generated/client';
import { generateId } from '../../utils/ids';
import { notifyWebhookRecorded } from './webhook-signals';

export type WebhookEventType =
  | 'video.asset.created'
  | 'video.asset.ready'
  | 'video.asset.errored'
  | 'video.asset.updated'
  | 'video.asset.deleted'
  | 'video.asset.static_rendition.created'
  | 'video.asset.static_rendition.ready'
  | 'video.asset.static_rendition.errored'
  | 'video.asset.static_rendition.skipped'
  | 'video.asset.static_rendition.deleted'
  | 'video.asset.static_renditions.preparing'
  | 'video.asset.static_renditions.ready'
  | 'video.asset.static_renditions.errored'
  | 'video.asset.static_renditions.deleted'
  | 'video.asset.master.preparing'
  | 'video.asset.master.ready'
  | 'video.asset.master.errored'
  | 'video.asset.master.deleted'
  | 'video.asset.track.created'
  | 'video.asset.track.ready'
  | 'video.asset.track.errored'
  | 'video.asset.track.deleted'
  | 'video.asset.live_stream_completed'
  | 'video.live_stream.created'
  | 'video.live_stream.connected'
  | 'video.live_stream.recording'
  | 'video.live_stream.active'
  | 'video.live_stream.disconnected'
  | 'video.live_stream.idle'
  | 'video.live_stream.updated'
  | 'video.live_stream.enabled'
  | 'video.live_stream.disabled'
  | 'video.live_stream.deleted'
  | 'video.live_stream.warning'
  | 'video.live_stream.simulcast_target.created'
  | 'video.live_stream.simulcast_target.idle'
  | 'video.live_stream.simulcast_target.starting'
  | 'video.live_stream.simulcast_target.broadcasting'
  | 'video.live_stream.simulcast_target.errored'
  | 'video.live_stream.simulcast_target.deleted'
  | 'video.upload.created'
  | 'video.upload.asset_created'
  | 'video.upload.cancelled'
  | 'video.upload.errored';

export type WebhookEventInput = {
  type: WebhookEventType;
  object: { type: 'asset' | 'upload' | 'static_rendition' | 'track' | 'live_stream' | 'simulcast_target'; id: string };
  // The resource as the API serialises it; `created_at` is turned into an integer here, as Mux
  // sends it inside webhook data.
  data: Record<string, unknown>;
};

type DbClient = Db | Prisma.TransactionClient;

const withIntegerCreatedAt = (data: Record<string, unknown>): Record<string, unknown> => {
  const createdAt = data.created_at;
  return typeof createdAt === 'string' && /^\d+$/.test(createdAt) ? { ...data, created_at: Number(createdAt) } : data;
};

// The outbox write: the event and one pending delivery per configured endpoint. Call it with the
// transaction that makes the change the event reports, so neither exists without the other.
export const recordWebhookEvent = async (db: DbClient, event: WebhookEventInput): Promise<void> => {
  const endpoints = await db.webhookEndpoint.findMany({ select: { id: true } });
  if (endpoints.length === 0) return;
  const eventId = randomUUID();
  await db.webhookEvent.create({
    data: {
      id: eventId,
      type: event.type,
      objectType: event.object.type,
      objectId: event.object.id,
      dataJson: JSON.stringify(withIntegerCreatedAt(event.data)),
    },
  });
  await db.webhookDelivery.createMany({
    data: endpoints.map((endpoint) => ({ id: generateId(), eventId, endpointId: endpoint.id })),
  });
  notifyWebhookRecorded();
};
