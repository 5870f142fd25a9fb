import type { Prisma } from '../../db/generated/client';
import { enqueueJob } from '../../jobs/queue';
import type { NormalizedAssetSettings } from '../../schemas/asset-settings';
import {
  mp4SupportResolutions,
  staticRenditionName,
  staticRenditionSelect,
  type Mp4Support,
  type StaticRenditionRecord,
  type StaticResolution,
} from '../../schemas/static-rendition';
import { generateId } from '../../utils/ids';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { staticRenditionEvent } from './static-rendition-events';

export type StaticRenditionSpec = {
  resolution: Parameters<typeof staticRenditionName>[0];
  passthrough?: string;
  viaMp4Support: boolean;
};

export const legacySpecs = (mp4Support: Mp4Support): StaticRenditionSpec[] =>
  mp4SupportResolutions(mp4Support).map((resolution) => ({ resolution, viaMp4Support: true }));

/** The files an asset's create settings ask for: `static_renditions`, or the legacy `mp4_support`. */
export const staticRenditionSpecs = (settings: Pick<NormalizedAssetSettings, 'mp4Support' | 'staticRenditions'>): StaticRenditionSpec[] => [
  ...settings.staticRenditions.map(({ resolution, passthrough }: { resolution: StaticResolution; passthrough?: string }) => ({
    resolution,
    passthrough,
    viaMp4Support: false,
  })),
  ...legacySpecs(settings.mp4Support),
];

/** video.asset.static_rendition.created for each file of the static_renditions API (the legacy setting has no per-file events). */
export const announceStaticRenditions = async (tx: Prisma.TransactionClient, assetId: string, files: StaticRenditionRecord[]): Promise<void> => {
  for (const file of files) {
    if (!file.viaMp4Support) await recordWebhookEvent(tx, staticRenditionEvent('video.asset.static_rendition.created', assetId, file));
  }
};

// Records `preparing` files inside the caller's transaction; `announce: false` leaves the
// webhooks to the caller (an asset being created is announced first).
export const insertStaticRenditions = async (
  tx: Prisma.TransactionClient,
  { assetId, specs, announce = true }: { assetId: string; specs: StaticRenditionSpec[]; announce?: boolean },
): Promise<StaticRenditionRecord[]> => {
  const created: StaticRenditionRecord[] = [];
  for (const spec of specs) {
    const file = await tx.staticRendition.create({
      data: {
        id: generateId(),
        assetId,
        name: staticRenditionName(spec.resolution),
        resolution: spec.resolution,
        viaMp4Support: spec.viaMp4Support,
        passthrough: spec.passthrough ?? null,
      },
      select: staticRenditionSelect,
    });
    created.push(file);
  }
  if (announce) await announceStaticRenditions(tx, assetId, created);
  return created;
};

// One job per file, so each survives restarts and any worker can build it. Deduplicated by file:
// the ingest finishing and a POST arriving at the same moment queue it once.
export const queueStaticRenditionBuilds = async (renditionIds: string[], transaction?: Prisma.TransactionClient): Promise<void> => {
  for (const renditionId of renditionIds) {
    await enqueueJob({
      transaction,
      name: 'build-static-rendition-job',
      payload: { renditionId },
      maxAttempts: 3,
      dedupeKey: `static-rendition:${renditionId}`,
    });
  }
};
