import { databaseProviderOf, getDb, type Db } from './client';
import { Prisma } from './generated/client';

// Claims the due webhook delivery that has waited longest (pending → sending) for one dispatcher,
// skipping endpoints with a request in flight: the caller's own (`excludeEndpointIds`, known without
// a query) and any other dispatcher's (`sending` rows), so an endpoint gets one request at a time.
// As with jobs (claim-job.ts), SQLite decides with a conditional update and PostgreSQL hands
// concurrent dispatchers different rows with FOR UPDATE SKIP LOCKED; two dispatchers claiming for
// one endpoint in the same instant can still both send (order is kept for a healthy receiver, not
// promised, as with Mux; each delivery is still sent once).

export type ClaimedWebhookDelivery = { id: string; endpointId: string };

const claimWithConditionalUpdate = async (db: Db, excludeEndpointIds: string[], now: Date): Promise<ClaimedWebhookDelivery | null> => {
  for (let tries = 0; tries < 5; tries++) {
    const candidate = await db.webhookDelivery.findFirst({
      where: {
        status: 'pending',
        nextAttemptAt: { lte: now },
        ...(excludeEndpointIds.length > 0 && { endpointId: { notIn: excludeEndpointIds } }),
        endpoint: { deliveries: { none: { status: 'sending' } } },
      },
      orderBy: [{ nextAttemptAt: 'asc' }, { createdAt: 'asc' }],
      select: { id: true, endpointId: true },
    });
    if (!candidate) return null;
    const claimed = await db.webhookDelivery.updateMany({
      where: { id: candidate.id, status: 'pending' },
      data: { status: 'sending', lockedAt: now },
    });
    if (claimed.count === 1) return candidate;
  }
  return null;
};

// Raw SQL sets `updatedAt` itself: Prisma's @updatedAt is applied by the client, not the database.
const claimWithSkipLocked = async (db: Db, excludeEndpointIds: string[], now: Date): Promise<ClaimedWebhookDelivery | null> => {
  const notBusy = excludeEndpointIds.length > 0 ? Prisma.sql`AND d."endpointId" NOT IN (${Prisma.join(excludeEndpointIds)})` : Prisma.empty;
  const rows = await db.$queryRaw<ClaimedWebhookDelivery[]>`
    UPDATE "WebhookDelivery"
    SET "status" = 'sending', "lockedAt" = ${now}, "updatedAt" = ${now}
    WHERE "id" = (
      SELECT d."id" FROM "WebhookDelivery" d
      WHERE d."status" = 'pending' AND d."nextAttemptAt" <= ${now} ${notBusy}
        AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" s WHERE s."endpointId" = d."endpointId" AND s."status" = 'sending')
      ORDER BY d."nextAttemptAt" ASC, d."createdAt" ASC
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    RETURNING "id", "endpointId"`;
  return rows[0] ?? null;
};

export const claimDueWebhookDelivery = ({
  excludeEndpointIds,
  now = new Date(),
  db = getDb(),
}: {
  excludeEndpointIds: string[];
  now?: Date;
  db?: Db;
}): Promise<ClaimedWebhookDelivery | null> =>
  databaseProviderOf(db) === 'postgresql'
    ? claimWithSkipLocked(db, excludeEndpointIds, now)
    : claimWithConditionalUpdate(db, excludeEndpointIds, now);
