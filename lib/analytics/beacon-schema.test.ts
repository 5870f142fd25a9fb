import { describe, expect, test } from 'vitest';
import { parseBeacon } from './beacon-schema';
import { beaconBody, simulatedView } from './mux-embed-beacons';

describe('parseBeacon', () => {
  test('decodes a mux-embed body', () => {
    const view = simulatedView({ viewId: 'view-1', sourceUrl: 'http://localhost:3000/abc.m3u8', startedAt: 1_000 });
    const result = parseBeacon(beaconBody([view.event('viewstart'), view.event('play')], 5_000));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.beacon.transmissionTimestamp).toBe(5_000);
    expect(result.beacon.events.map((event) => [event.name, event.viewId, event.sequence, event.viewerTime])).toEqual([
      ['viewstart', 'view-1', 1, 1_000],
      ['play', 'view-1', 2, 1_000],
    ]);
    expect(result.beacon.events[0]?.fields.player_software_name).toBe('mux-player');
  });

  test('metadata is optional; nested values are left out of the fields', () => {
    const result = parseBeacon(JSON.stringify({ events: [{ e: 'hb', xid: 'v', xsqno: 3, c1: { nested: true }, c2: 'x' }] }));
    expect(result.ok && result.beacon.events[0]?.fields).toEqual({ event: 'hb', view_id: 'v', view_sequence_number: 3, custom_2: 'x' });
  });

  test.each([
    ['not JSON', '{"events": ['],
    ['not an object', '[]'],
    ['no events', '{"metadata":{}}'],
    ['empty events', '{"events":[]}'],
    ['an event without view_id', '{"events":[{"e":"hb","xsqno":1}]}'],
    ['an event without a sequence number', '{"events":[{"e":"hb","xid":"v"}]}'],
    ['a negative sequence number', '{"events":[{"e":"hb","xid":"v","xsqno":-1}]}'],
    ['an event name that is no string', '{"events":[{"e":5,"xid":"v","xsqno":1}]}'],
    ['a transmission timestamp that is no number', '{"metadata":{"transmission_timestamp":"x"},"events":[{"e":"hb","xid":"v","xsqno":1}]}'],
  ])('refuses %s', (_name, body) => {
    const result = parseBeacon(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.messages.length).toBeGreaterThan(0);
  });

  test('at most 300 events per body', () => {
    const event = { e: 'hb', xid: 'v', xsqno: 1 };
    expect(parseBeacon(JSON.stringify({ events: Array(300).fill(event) })).ok).toBe(true);
    expect(parseBeacon(JSON.stringify({ events: Array(301).fill(event) })).ok).toBe(false);
  });
});
