import type { EncodingLoad, RungEncodeCost } from '../../lib/services/playback/encoding-load';
import { basicAuth, request } from '../http';
import type { AccessToken } from './bench-server';
import { sleep } from '../stats';

// What the server's encoder went through during a phase, from GET /api/encoding-load (polled; it
// takes the API's access token): the deepest queue, how many encodes missed their viewer's
// deadline during the phase, and the measured cost of each rung at its end. A server without the
// endpoint (404) is reported as such rather than failing the phase.

export type EncodingLoadSummary =
  | { available: false; reason: string }
  | {
      available: true;
      samples: number;
      pollMs: number;
      encoderLimit: number;
      maxRunning: number;
      maxQueued: number;
      maxQueuedByKind: EncodingLoad['queuedByKind'];
      /** deadlineMisses at the end minus at the start of the phase. */
      deadlineMisses: number;
      rungCostsAtEnd: RungEncodeCost[];
    };

export type EncodingLoadPoller = { stop: () => Promise<EncodingLoadSummary> };

export const pollEncodingLoad = ({ baseUrl, token, pollMs = 500 }: { baseUrl: string; token: AccessToken; pollMs?: number }): EncodingLoadPoller => {
  const samples: EncodingLoad[] = [];
  let unavailable: string | null = null;
  let stopping = false;
  const url = `${baseUrl}/api/encoding-load`;
  const pollOnce = async () => {
    try {
      const response = await request({ url, headers: { authorization: basicAuth(token.id, token.secret) }, timeoutMs: 10_000 });
      if (response.status === 404) unavailable = `GET /api/encoding-load answered 404: the server does not have it`;
      else if (response.status !== 200) {
        if (samples.length === 0) unavailable = `GET /api/encoding-load answered ${response.status}: ${response.body.toString('utf8').slice(0, 200)}`;
      }
      else samples.push((JSON.parse(response.body.toString('utf8')) as { data: EncodingLoad }).data);
    } catch (error) {
      // A missed sample under load is not the end of the series.
      if (samples.length === 0) unavailable = `GET /api/encoding-load failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  };
  const loop = (async () => {
    await pollOnce();
    while (!stopping && unavailable === null) {
      await sleep(pollMs);
      await pollOnce();
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await loop;
      if (unavailable === null) await pollOnce();
      const first = samples[0];
      const last = samples.at(-1);
      if (!first || !last) return { available: false, reason: unavailable ?? 'no sample answered' };
      const maxOf = (pick: (sample: EncodingLoad) => number) => Math.max(...samples.map(pick));
      return {
        available: true,
        samples: samples.length,
        pollMs,
        encoderLimit: last.encoderLimit,
        maxRunning: maxOf((sample) => sample.running),
        maxQueued: maxOf((sample) => sample.queued),
        maxQueuedByKind: {
          onDemand: maxOf((sample) => sample.queuedByKind.onDemand),
          prefetch: maxOf((sample) => sample.queuedByKind.prefetch),
          audio: maxOf((sample) => sample.queuedByKind.audio),
          background: maxOf((sample) => sample.queuedByKind.background),
        },
        deadlineMisses: last.deadlineMisses - first.deadlineMisses,
        rungCostsAtEnd: last.rungCosts,
      };
    },
  };
};
