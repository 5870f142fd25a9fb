import { afterEach, describe, expect, test } from 'vitest';
import { claimDueWebhookDelivery, type ClaimedWebhookDelivery } from './claim-webhook-delivery';
import type { Db } from './client';
import { createTestPostgresDatabase, createTestSqliteDatabase, isTestPostgresReachable, migratedClients, type TestDatabase } from './test-databases';

const postgresReachable = await isTestPostgresReachable();
const LEASE_MS = 70_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// Two clients on one database, as two nodes would have.
const twoClients = async (make: () => Promise<TestDatabase>) => (await migratedClients(make, 2, cleanups)) as [Db, Db];

// One event delivered to endpoints e0…e(n-1), due in that order.
const seedDeliveries = async (db: Db, endpoints: number) => {
  const due = Date.now() - 60_000;
  await db.webhookEvent.create({ data: { id: 'evt', type: 'video.asset.ready', objectType: 'asset', objectId: 'a1', dataJson: '{}' } });
  for (let index = 0; index < endpoints; index++) {
    await db.webhookEndpoint.create({ data: { id: `e${index}`, url: `https://hooks.example/${index}`, signingSecret: 's' } });
    await db.webhookDelivery.create({
      data: { id: `d${String(index).padStart(2, '0')}`, eventId: 'evt', endpointId: `e${index}`, nextAttemptAt: new Date(due + index) },
    });
  }
};

const drain = async (db: Db): Promise<ClaimedWebhookDelivery[]> => {
  const claimed: ClaimedWebhookDelivery[] = [];
  for (;;) {
    const delivery = await claimDueWebhookDelivery({ db, excludeEndpointIds: [], leaseMs: LEASE_MS });
    if (!delivery) return claimed;
    claimed.push(delivery);
  }
};

describe.each([
  { name: 'SQLite', make: createTestSqliteDatabase, skip: false },
  { name: 'PostgreSQL at 127.0.0.1:5432', make: () => createTestPostgresDatabase(), skip: !postgresReachable },
])('claimDueWebhookDelivery on $name', ({ make, skip }) => {
  test.skipIf(skip)('takes the oldest due delivery, skipping busy endpoints, and marks it sending', async () => {
    const [db] = await twoClients(make);
    await seedDeliveries(db, 3);
    expect(await claimDueWebhookDelivery({ db, excludeEndpointIds: ['e0', 'e1'], leaseMs: LEASE_MS })).toEqual({ id: 'd02', endpointId: 'e2' });
    expect(await claimDueWebhookDelivery({ db, excludeEndpointIds: ['e0', 'e1'], leaseMs: LEASE_MS })).toBeNull();
    expect(await claimDueWebhookDelivery({ db, excludeEndpointIds: [], leaseMs: LEASE_MS })).toEqual({ id: 'd00', endpointId: 'e0' });
    const row = await db.webhookDelivery.findUniqueOrThrow({ where: { id: 'd02' } });
    expect(row.status).toBe('sending');
    expect(row.lockedAt).toBeInstanceOf(Date);
  });

  test.skipIf(skip)('an endpoint with a request in flight from another dispatcher waits; then gets its next oldest', async () => {
    const [a, b] = await twoClients(make);
    await seedDeliveries(a, 1);
    const due = new Date(Date.now() - 30_000);
    await a.webhookDelivery.create({ data: { id: 'd00-later', eventId: 'evt', endpointId: 'e0', nextAttemptAt: due } });
    expect(await claimDueWebhookDelivery({ db: a, excludeEndpointIds: [], leaseMs: LEASE_MS })).toEqual({ id: 'd00', endpointId: 'e0' });
    expect(await claimDueWebhookDelivery({ db: b, excludeEndpointIds: [], leaseMs: LEASE_MS })).toBeNull();
    await a.webhookDelivery.update({ where: { id: 'd00' }, data: { status: 'delivered', lockedAt: null } });
    expect(await claimDueWebhookDelivery({ db: b, excludeEndpointIds: [], leaseMs: LEASE_MS })).toEqual({ id: 'd00-later', endpointId: 'e0' });
  });

  test.skipIf(skip)('a delivery left sending by a dispatcher that died is claimed again once its lease ran out', async () => {
    const [a, b] = await twoClients(make);
    await seedDeliveries(a, 1);
    await a.webhookDelivery.create({ data: { id: 'd00-later', eventId: 'evt', endpointId: 'e0', nextAttemptAt: new Date(Date.now() - 30_000) } });
    const claimedAt = new Date(Date.now() - 1_000);
    expect(await claimDueWebhookDelivery({ db: a, excludeEndpointIds: [], leaseMs: LEASE_MS, now: claimedAt })).toEqual({ id: 'd00', endpointId: 'e0' });
    // Within the lease the endpoint is busy; after it, the abandoned delivery (the oldest) goes first.
    expect(await claimDueWebhookDelivery({ db: b, excludeEndpointIds: [], leaseMs: LEASE_MS })).toBeNull();
    const later = new Date(claimedAt.getTime() + LEASE_MS + 1);
    expect(await claimDueWebhookDelivery({ db: b, excludeEndpointIds: [], leaseMs: LEASE_MS, now: later })).toEqual({ id: 'd00', endpointId: 'e0' });
    expect(await claimDueWebhookDelivery({ db: a, excludeEndpointIds: [], leaseMs: LEASE_MS, now: later })).toBeNull();
  });

  test.skipIf(skip)('two dispatchers at once never send the same delivery', async () => {
    const [a, b] = await twoClients(make);
    await seedDeliveries(a, 30);
    const [byA, byB] = await Promise.all([drain(a), drain(b)]);
    const ids = [...byA, ...byB].map((delivery) => delivery.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(30);
  });
});
