import { createHash } from 'node:crypto';

// Mux's envelope identifies the webhook configuration of an attempt with a number (`webhook_id`),
// while our endpoint ids are strings. The first 48 bits of SHA-256(endpoint id) give a number that
// is stable for the endpoint's lifetime, the same on every database (unlike SQLite's rowid, which
// VACUUM may renumber), and a safe JavaScript integer.
export const webhookEndpointNumber = (endpointId: string): number =>
  createHash('sha256').update(endpointId, 'utf8').digest().readUIntBE(0, 6);
