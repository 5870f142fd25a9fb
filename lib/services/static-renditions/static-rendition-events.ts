import { serializeStaticRendition, type StaticRenditionRecord } from '../../schemas/static-rendition';
import type { WebhookEventInput, WebhookEventType } from '../webhooks/record-webhook-event';

type FileEvent = Extract<WebhookEventType, `video.asset.static_rendition.${string}`>;

/** A per-file webhook of the static_renditions API: the file as the API shows it, plus its asset. */
export const staticRenditionEvent = (type: FileEvent, assetId: string, file: StaticRenditionRecord, reason?: string): WebhookEventInput => ({
  type,
  object: { type: 'static_rendition', id: file.id },
  data: {
    ...serializeStaticRendition(file),
    asset_id: assetId,
    ...(reason !== undefined && { error: { type: type.endsWith('.skipped') ? 'skipped' : 'failed_request', messages: [reason] } }),
  },
});
