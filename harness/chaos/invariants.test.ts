import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { duplicateDeliveries, firstSeenHashes, missingWebhooks } from './invariant-report';
import { invariantViolations, requestsDuring, segmentHashConflicts, type ChaosInvariants } from './invariants';
import { summariseRequests } from './request-figures';
import { TEMPORARY_KEY } from './segment-checks';
import { recordsOfViewer } from './viewers';
import type { RequestRecord, SegmentObservation, WebhookDelivery } from './workload-record';

const request = (overrides: Partial<RequestRecord>): RequestRecord => ({
  kind: 'asset-get',
  method: 'GET',
  path: '/video/v1/assets/a1',
  startedAt: 0,
  durationMs: 10,
  status: 200,
  ...overrides,
});

const observation = (path: string, sha256: string, at: number, assetId = 'asset-1'): SegmentObservation => ({
  path,
  assetId,
  kind: 'video',
  rendition: '540p',
  index: 0,
  sha256,
  at,
});

const delivery = (eventId: string, type: string, objectId: string): WebhookDelivery => ({ eventId, type, objectId, receivedAt: 0 });

const cleanInvariants = (): ChaosInvariants => ({
  settle: { waitedMs: 1_000, timedOut: false },
  creates: { accepted: 3, ready: 3, errored: [], stuck: [], unreadable: [] },
  uploads: {
    started: 2,
    succeeded: 2,
    failed: [],
    cutShort: 0,
    assetReady: 2,
    assetErrored: [],
    assetStuck: [],
    withoutAsset: [],
    sourceIdentical: 2,
    sourceMismatched: [],
    sourceMissing: [],
  },
  segments: {
    observations: 10,
    distinctPaths: 5,
    conflicts: [],
    nodes: { sampledPaths: 5, fetches: 10, matched: 10, mismatched: [], failed: [] },
    bucket: { assetsChecked: 1, objects: 12, emptyObjects: [], temporaryObjects: [], segmentMismatches: [], segmentsCompared: 5, notRead: 0 },
  },
  webhooks: { endpointRegistered: true, deliveries: 10, signatureFailures: 0, assetsExpected: 5, missing: [], duplicates: 0, duplicateEventIds: [] },
  broadcast: {
    liveStreamId: 'live-1',
    completeStatus: 200,
    recordings: [{ assetId: 'rec-1', status: 'ready', durationSeconds: 118, errors: [] }],
    publishedSeconds: 120,
    gapSeconds: 1,
    reconnects: 1,
    recordedSeconds: 118,
    allowedShortfallSeconds: 16,
  },
  requests: summariseRequests([request({}), request({ status: 503, retryAfter: '5' })]),
});

describe('requestsDuring', () => {
  test('counts the requests that overlap each window, including one sent before it and still waiting', () => {
    const record = {
      requests: [
        request({ startedAt: 0, durationMs: 50 }), // before the window
        request({ startedAt: 90, durationMs: 40_000, status: 0 }), // sent before, hangs through it
        request({ startedAt: 150, durationMs: 20, status: 503, retryAfter: '1' }),
        request({ startedAt: 160, durationMs: 30, status: 500 }),
        request({ startedAt: 170, durationMs: 40 }),
        request({ startedAt: 300, durationMs: 10 }), // after the window
      ],
    };
    const [window] = requestsDuring(record, [{ kind: 'redis-restart', startedAt: 100, endedAt: 200 }]);
    expect(window).toMatchObject({ kind: 'redis-restart', startedAt: 100, endedAt: 200, requests: 4, serverErrors: 2, status500: 1, networkErrors: 1, hangs: 1 });
    // Nearest rank over [20, 30, 40, 40000].
    expect(window?.p50Ms).toBe(30);
    expect(window?.p99Ms).toBe(40_000);
  });

  test('an empty window has no latency figures', () => {
    const [window] = requestsDuring({ requests: [request({ startedAt: 0 })] }, [{ kind: 'pg-restart', startedAt: 1_000, endedAt: 2_000 }]);
    expect(window).toMatchObject({ requests: 0, p50Ms: null, p99Ms: null, hangs: 0 });
  });
});

describe('summariseRequests', () => {
  test('tells 500s from 503s with and without Retry-After, and counts hangs and cut-short requests apart', () => {
    const figures = summariseRequests([
      request({ status: 500, errorType: 'internal_error' }),
      request({ status: 503, retryAfter: '5' }),
      request({ status: 503 }),
      request({ kind: 'playback-video', status: 503, headersUnseen: true }),
      request({ status: 502 }),
      request({ status: 0, durationMs: 60_000, note: 'no answer within 60 s' }),
      request({ status: 0, durationMs: 5_000, note: 'cut short when the workload stopped' }),
    ]);
    expect(figures).toMatchObject({
      total: 7,
      status500: 1,
      status503WithRetryAfter: 1,
      status503WithoutRetryAfter: 1,
      status503HeadersUnseen: 1,
      otherServerErrors: { 502: 1 },
      networkErrors: 1,
      cutShortAtStop: 1,
      hangs: 1,
      maxDurationMs: 60_000,
    });
    expect(figures.byKind['asset-get']?.count).toBe(6);
    expect(figures.status500Examples[0]).toContain('internal_error');
  });
});

describe('segment hashes', () => {
  test('a path served with two different bodies is a conflict; the same body many times is not', () => {
    const conflicts = segmentHashConflicts([
      observation('/p1/540p/0.m4s', 'aaa', 1),
      observation('/p1/540p/0.m4s', 'aaa', 2),
      observation('/p1/540p/1.m4s', 'bbb', 3),
      observation('/p1/540p/1.m4s', 'ccc', 4),
      observation('/p1/540p/1.m4s', 'bbb', 5),
    ]);
    expect(conflicts).toEqual([{ path: '/p1/540p/1.m4s', assetId: 'asset-1', hashes: [{ sha256: 'bbb', count: 2 }, { sha256: 'ccc', count: 1 }] }]);
  });

  test('the reference body of a path is the one served first', () => {
    const first = firstSeenHashes([observation('/p1/540p/1.m4s', 'later', 9), observation('/p1/540p/1.m4s', 'earlier', 3)]);
    expect(first.get('/p1/540p/1.m4s')?.sha256).toBe('earlier');
  });

  test("a viewer's kept bodies are hashed under the path of the fetch that served them", () => {
    const fetch = (kind: 'multivariant' | 'playlist' | 'init' | 'video' | 'audio', url: string, status: number, index: number | null = null) => ({
      kind,
      rendition: kind === 'audio' ? 'audio' : '540p',
      index,
      url,
      status,
      ms: 10,
      bytes: 4,
      atMs: 100,
    });
    const { requests, observations, unmatchedBodies } = recordsOfViewer(
      {
        fetches: [
          fetch('multivariant', 'http://lb/p1.m3u8', 200),
          fetch('playlist', 'http://lb/p1/540p.m3u8', 200),
          fetch('init', 'http://lb/p1/540p/init.mp4', 200),
          fetch('video', 'http://lb/p1/540p/0.m4s', 503, 0),
          fetch('video', 'http://lb/p1/540p/0.m4s', 200, 0),
          fetch('audio', 'http://lb/p1/audio/0.m4s', 200, 0),
        ],
        kept: [
          { kind: 'init', rendition: '540p', index: null, body: Buffer.from('init') },
          { kind: 'video', rendition: '540p', index: 0, body: Buffer.from('seg0') },
          { kind: 'audio', rendition: 'audio', index: 0, body: Buffer.from('aud0') },
        ],
      },
      1_000_000,
      'asset-1',
    );
    expect(unmatchedBodies).toBe(0);
    expect(requests.map((entry) => `${entry.kind} ${entry.status}`)).toEqual([
      'playback-multivariant 200',
      'playback-playlist 200',
      'playback-init 200',
      'playback-video 503',
      'playback-video 200',
      'playback-audio 200',
    ]);
    expect(requests[0]).toMatchObject({ startedAt: 1_000_090, durationMs: 10, headersUnseen: true });
    expect(observations.map((entry) => entry.path)).toEqual(['/p1/540p/init.mp4', '/p1/540p/0.m4s', '/p1/audio/0.m4s']);
    expect(observations[1]?.sha256).toBe(createHash('sha256').update('seg0').digest('hex'));
  });
});

describe('bucket keys', () => {
  test('a temp file of an atomic write looks temporary; final objects do not', () => {
    expect(TEMPORARY_KEY.test('assets/a1/hls/540p/3.m4s.0123456789ab.tmp')).toBe(true);
    expect(TEMPORARY_KEY.test('assets/a1/source.part')).toBe(true);
    for (const key of ['assets/a1/source', 'assets/a1/hls/540p/3.m4s', 'assets/a1/hls/audio/init.mp4', 'assets/a1/hls/audio/complete.json']) {
      expect(TEMPORARY_KEY.test(key)).toBe(false);
    }
  });
});

describe('webhooks', () => {
  test('an asset needs created, and once settled, ready or errored', () => {
    const missing = missingWebhooks(
      [
        { assetId: 'ok', status: 'ready' },
        { assetId: 'no-ready', status: 'ready' },
        { assetId: 'errored', status: 'errored' },
        { assetId: 'preparing', status: 'preparing' },
        { assetId: 'nothing', status: null },
      ],
      [
        delivery('e1', 'video.asset.created', 'ok'),
        delivery('e2', 'video.asset.ready', 'ok'),
        delivery('e3', 'video.asset.created', 'no-ready'),
        delivery('e4', 'video.asset.created', 'errored'),
        delivery('e5', 'video.asset.errored', 'errored'),
        delivery('e6', 'video.asset.created', 'preparing'),
      ],
    );
    expect(missing).toEqual([
      { assetId: 'no-ready', expected: 'video.asset.ready or video.asset.errored' },
      { assetId: 'nothing', expected: 'video.asset.created' },
    ]);
  });

  test('duplicates count the extra deliveries of an event id', () => {
    expect(duplicateDeliveries([delivery('e1', 't', 'a'), delivery('e1', 't', 'a'), delivery('e1', 't', 'a'), delivery('e2', 't', 'a')])).toEqual({
      duplicates: 2,
      eventIds: ['e1'],
    });
  });
});

describe('invariantViolations', () => {
  test('none when every guarantee holds (a 503 with Retry-After is fine)', () => {
    expect(invariantViolations(cleanInvariants())).toEqual([]);
  });

  test('names each broken guarantee in plain words; uploads given up by the client and webhook duplicates are figures, not violations', () => {
    const invariants = cleanInvariants();
    invariants.creates.errored = [{ assetId: 'a9', messages: ['UnknownError'] }];
    invariants.uploads.failed = [{ uploadId: 'u1', failure: 'Server responded with 500. Stopping upload.' }];
    invariants.uploads.sourceMismatched = ['a7'];
    invariants.segments.conflicts = [{ path: '/p/540p/3.m4s', assetId: 'a1', hashes: [{ sha256: 'x', count: 1 }, { sha256: 'y', count: 1 }] }];
    invariants.segments.bucket.temporaryObjects = ['assets/a1/hls/540p/3.m4s.0123456789ab.tmp'];
    invariants.webhooks.missing = [{ assetId: 'a2', expected: 'video.asset.created' }];
    invariants.webhooks.duplicates = 1;
    invariants.webhooks.duplicateEventIds = ['e1'];
    invariants.requests = summariseRequests([request({ status: 500 }), request({ status: 503 }), request({ durationMs: 31_000 })]);
    const violations = invariantViolations(invariants);
    expect(violations).toHaveLength(8);
    expect(violations.join('\n')).toMatch(/1 asset\(s\) created from a valid input URL ended errored \(lost inputs\): a9 \(UnknownError\)/);
    expect(violations.join('\n')).not.toMatch(/u1|duplicate/);
    expect(violations.join('\n')).toMatch(/answered 500/);
    expect(violations.join('\n')).toMatch(/503 answer\(s\) had no Retry-After/);
    expect(violations.join('\n')).toMatch(/took 30 s or more/);
  });

  test('a recording may be short by the slack for its reconnects, not more', () => {
    const within = cleanInvariants();
    expect(invariantViolations(within)).toEqual([]);
    const short = cleanInvariants();
    if (!short.broadcast) throw new Error('fixture has a broadcast');
    short.broadcast.recordedSeconds = 90;
    expect(invariantViolations(short)).toEqual([expect.stringMatching(/the recording holds 90.0 s of 120.0 s published/)]);
  });

  test('a broadcast that left no recording, or a recording not ready, is a violation', () => {
    const invariants = cleanInvariants();
    if (!invariants.broadcast) throw new Error('fixture has a broadcast');
    invariants.broadcast.recordings = [{ assetId: 'rec-1', status: 'errored', durationSeconds: null, errors: ['boom'] }];
    invariants.broadcast.recordedSeconds = 0;
    expect(invariantViolations(invariants)).toEqual([expect.stringMatching(/not ready: rec-1 errored \(boom\)/), expect.stringMatching(/recording holds 0.0 s/)]);
    invariants.broadcast.recordings = [];
    expect(invariantViolations(invariants)).toEqual([expect.stringMatching(/left no recording asset/)]);
  });

  test('an unregistered webhook endpoint is reported rather than passing silently', () => {
    const invariants = cleanInvariants();
    invariants.webhooks.endpointRegistered = false;
    expect(invariantViolations(invariants)).toEqual([expect.stringMatching(/webhook endpoint could not be registered/)]);
  });
});
