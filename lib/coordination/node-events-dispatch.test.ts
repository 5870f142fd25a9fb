import { describe, expect, test } from 'vitest';
import type { NodeEvent, NodeEventHandlers } from './node-event';
import { nodeEventDispatcher } from './node-events-dispatch';

describe('nodeEventDispatcher', () => {
  test('an event reaches every registered handler of its type, in the order given, and no other handler', async () => {
    const calls: string[] = [];
    const record = (name: string) => (event: NodeEvent) => void calls.push(`${name}:${event.type}`);
    const playback: NodeEventHandlers = { 'asset-deleted': record('playback'), 'playback-id-deleted': record('playback') };
    const jobs: NodeEventHandlers = { 'asset-deleted': record('jobs') };
    const keys: NodeEventHandlers = { 'signing-key-deleted': record('keys') };
    const storage: NodeEventHandlers = {
      'asset-deleted': async (event) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        record('storage')(event);
      },
    };
    const apply = nodeEventDispatcher([playback, jobs, keys, storage]);

    await apply({ type: 'asset-deleted', assetId: 'asset1' });
    expect(calls).toEqual(['playback:asset-deleted', 'jobs:asset-deleted', 'storage:asset-deleted']);

    calls.length = 0;
    await apply({ type: 'signing-key-deleted', keyId: 'key1' });
    expect(calls).toEqual(['keys:signing-key-deleted']);

    calls.length = 0;
    await apply({ type: 'tracks-changed', assetId: 'asset1' });
    expect(calls).toEqual([]);
  });

  test('a handler gets the event itself, and a later one waits for an earlier one to finish', async () => {
    const order: string[] = [];
    const seen: NodeEvent[] = [];
    const apply = nodeEventDispatcher([
      {
        'tracks-changed': async (event) => {
          seen.push(event);
          await new Promise((resolve) => setTimeout(resolve, 10));
          order.push('first done');
        },
      },
      { 'tracks-changed': () => void order.push('second') },
    ]);
    await apply({ type: 'tracks-changed', assetId: 'asset2' });
    expect(seen).toEqual([{ type: 'tracks-changed', assetId: 'asset2' }]);
    expect(order).toEqual(['first done', 'second']);
  });

  test('the first handler that throws stops the rest, and the dispatch rejects with its error', async () => {
    const calls: string[] = [];
    const apply = nodeEventDispatcher([
      { 'restriction-changed': () => void calls.push('before') },
      {
        'restriction-changed': () => {
          throw new Error('boom');
        },
      },
      { 'restriction-changed': () => void calls.push('after') },
    ]);
    await expect(apply({ type: 'restriction-changed', restrictionId: 'r1' })).rejects.toThrow('boom');
    expect(calls).toEqual(['before']);
  });
});
