import { databaseProviderOf, getDb, type Db } from './client';
import { Prisma } from './generated/client';

// Claims the due webhook delivery that has waited longest (pending → sending) for one dispatcher,
// skipping endpoints with a request in flight: the caller's own (`excludeEndpointIds`, known without
// a query) and any other dispatcher's (`sending` rows), so an endpoint gets one request at a time.
// As with jobs (claim-job.ts), SQLite decides with a conditional update and PostgreSQL hands
// concurrent dispatchers different rows with FOR UPDATE SKIP LOCKED; two dispatchers claiming for
// one endpoint in the same instant can still both send (order is kept for a healthy receiver, not
// promised, as with Mux; each delivery is still sent once).
//
// A `sending` row is leased: its attempt ends by the dispatcher's timeout, so one still `sending`
// after `leaseMs` was left by a dispatcher that died (kill -9, a lost node). It no longer holds up
// its endpoint and is claimed again like a due one (sent again: receivers dedupe on the event id,
// as Mux asks them to).

export type ClaimedWebhookDelivery = { id: string; endpointId: string };

type Claim = { db: Db; excludeEndpointIds: string[]; now: Date; staleBefore: Date };

const claimWithConditionalUpdate = async ({ db, excludeEndpointIds, now, staleBefore }: Claim): Promise<ClaimedWebhookDelivery | null> => {
  const claimable = [
    { status: 'pending', nextAttemptAt: { lte: now } },
    { status: 'sending', lockedAt: { lt: staleBefore } },
  ];
  for (let tries = 0; tries < 5; tries++) {
    const candidate = await db.webhookDelivery.findFirst({
      where: {
        OR: claimable,
        ...(excludeEndpointIds.length > 0 && { endpointId: { notIn: excludeEndpointIds } }),
        endpoint: { deliveries: { none: { status: 'sending', lockedAt: { gte: staleBefore } } } },
      },
      orderBy: [{ nextAttemptAt: 'asc' }, { createdAt: 'asc' }],
      select: { id: true, endpointId: true },
    });
    if (!candidate) return null;
    const claimed = await db.webhookDelivery.updateMany({
      where: { id: candidate.id, OR: claimable },
      data: { status: 'sending', lockedAt: now },
    });
    if (claimed.count === 1) return candidate;
  }
  return null;
};

// Raw SQL sets `updatedAt` itself: Prisma's @updatedAt is applied by the client, not the database.
const claimWithSkipLocked = async ({ db, excludeEndpointIds, now, staleBefore }: Claim): Promise<ClaimedWebhookDelivery | null> => {
  const notBusy = excludeEndpointIds.length > 0 ? Prisma.sql`AND d."endpointId" NOT IN (${Prisma.join(excludeEndpointIds)})` : Prisma.empty;
  const rows = await db.$queryRaw<ClaimedWebhookDelivery[]>`
    UPDATE "WebhookDelivery"
    SET "status" = 'sending', "lockedAt" = ${now}, "updatedAt" = ${now}
    WHERE "id" = (
      SELECT d."id" FROM "WebhookDelivery" d
      WHERE ((d."status" = 'pending' AND d."nextAttemptAt" <= ${now}) OR (d."status" = 'sending' AND d."lockedAt" < ${staleBefore})) ${notBusy}
        AND NOT EXISTS (
          SELECT 1 FROM "WebhookDelivery" s
          WHERE s."endpointId" = d."endpointId" AND s."status" = 'sending' AND s."lockedAt" >= ${staleBefore}
        )
      ORDER BY d."nextAttemptAt" ASC, d."createdAt" ASC
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    RETURNING "id", "endpointId"`;
  return rows[0] ?? null;
};

export const claimDueWebhookDelivery = ({
  excludeEndpointIds,
  leaseMs,
  now = new Date(),
  db = getDb(),
}: {
  excludeEndpointIds: string[];
  /** Longer than any attempt can take (the delivery timeout, with a margin). */
  leaseMs: number;
  now?: Date;
  db?: Db;
}): Promise<ClaimedWebhookDelivery | null> => {
  const claim = { db, excludeEndpointIds, now, staleBefore: new Date(now.getTime() - leaseMs) };
  return databaseProviderOf(db) === 'postgresql' ? claimWithSkipLocked(claim) : claimWithConditionalUpdate(claim);
};
