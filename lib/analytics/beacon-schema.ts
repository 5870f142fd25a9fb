import { z } from 'zod';
import { decodeEventKeys } from './decode-keys';

// A mux-embed POST: `{metadata, events[]}`. `metadata` keys are not abbreviated; event keys are
// (§7.2–7.3). mux-embed sends at most 300 events per POST.

export const MAX_EVENTS_PER_BEACON = 300;
export const MAX_BEACON_BYTES = 512 * 1024;

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export type BeaconScalar = z.infer<typeof scalar>;

const beaconBodySchema = z.object({
  metadata: z
    .object({ transmission_timestamp: z.number().finite().optional(), rtt_ms: z.number().finite().optional() })
    .loose()
    .optional(),
  events: z.array(z.record(z.string(), z.unknown())).min(1).max(MAX_EVENTS_PER_BEACON),
});

const decodedEventSchema = z
  .object({
    event: z.string().min(1).max(64),
    view_id: z.string().min(1).max(128),
    view_sequence_number: z.number().int().nonnegative(),
    viewer_time: z.number().finite().optional(),
  })
  .loose();

export type BeaconEvent = {
  name: string;
  viewId: string;
  sequence: number;
  /** The player's clock (ms epoch), when sent. */
  viewerTime: number | undefined;
  /** The decoded fields with scalar values (nested values are not kept). */
  fields: Record<string, BeaconScalar>;
};

export type Beacon = { transmissionTimestamp: number | undefined; events: BeaconEvent[] };

export type BeaconParseResult = { ok: true; beacon: Beacon } | { ok: false; messages: string[] };

const scalarFields = (decoded: Record<string, unknown>): Record<string, BeaconScalar> => {
  const fields: Record<string, BeaconScalar> = {};
  for (const [key, value] of Object.entries(decoded)) {
    const parsed = scalar.safeParse(value);
    if (parsed.success) fields[key] = parsed.data;
  }
  return fields;
};

const issueMessages = (error: z.ZodError, prefix: string): string[] =>
  error.issues.slice(0, 5).map((issue) => `${prefix}${issue.path.join('.') || '(body)'}: ${issue.message}`);

/** Parses a beacon body (the raw text mux-embed POSTs). */
export const parseBeacon = (text: string): BeaconParseResult => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, messages: ['The beacon body is not valid JSON'] };
  }
  const body = beaconBodySchema.safeParse(json);
  if (!body.success) return { ok: false, messages: issueMessages(body.error, '') };
  const events: BeaconEvent[] = [];
  for (const [index, raw] of body.data.events.entries()) {
    const decoded = decodeEventKeys(raw);
    const event = decodedEventSchema.safeParse(decoded);
    if (!event.success) return { ok: false, messages: issueMessages(event.error, `events.${index}.`) };
    events.push({
      name: event.data.event,
      viewId: event.data.view_id,
      sequence: event.data.view_sequence_number,
      viewerTime: event.data.viewer_time,
      fields: scalarFields(decoded),
    });
  }
  return { ok: true, beacon: { transmissionTimestamp: body.data.metadata?.transmission_timestamp, events } };
};
