import type { Prisma } from '../../db/generated/client';
import { serializeTrack, type TrackRecord } from '../../schemas/track';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';

type TrackEventType = 'video.asset.track.created' | 'video.asset.track.ready' | 'video.asset.track.errored' | 'video.asset.track.deleted';

/** A track webhook: the track as the API shows it, plus its asset (mux-api-2.md §3.3). */
export const recordTrackEvent = (tx: Prisma.TransactionClient, type: TrackEventType, assetId: string, track: TrackRecord): Promise<void> =>
  recordWebhookEvent(tx, { type, object: { type: 'track', id: track.id }, data: { ...serializeTrack(track), asset_id: assetId } });
