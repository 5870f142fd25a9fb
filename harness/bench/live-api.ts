import { basicAuth, HttpStatusError, request } from '../http';
import type { AccessToken } from './bench-server';
import type { LiveInput } from './live-inputs';
import type { KeyframeProcess } from '../keyframe-process';
import { ffmpegDescendants } from '../processes';
import { sleep } from '../stats';

// The live streams the benchmark publishes to: created through the API like an integrator would,
// without new_asset_settings (no recording, so no on-demand ingest competes for the CPU after a
// broadcast) and with reconnect_window 0 (a broadcast ends the moment its publisher stops) unless
// a case measures the reconnect window (live-slate.ts); generated_subtitles only for the captions
// case (live-captions.ts), since each captioned broadcast runs a speech recogniser.

export type LatencyMode = 'standard' | 'reduced' | 'low';

/** What every live bench case runs against: the fresh server, its token and RTMP port, the input it publishes. */
export type LiveCaseContext = { server: KeyframeProcess; token: AccessToken; rtmpPort: number; input: LiveInput; log: (line: string) => void };

export type BenchLiveStream = {
  id: string;
  /** Secret: goes into the publisher's URL only, never into logs or results. */
  streamKey: string;
  /** Secret as well: SRT publishers encrypt with it. */
  srtPassphrase: string;
  playbackId: string;
  latencyMode: LatencyMode;
};

type CreateResponse = { data?: { id?: string; stream_key?: string; srt_passphrase?: string; playback_ids?: Array<{ id?: string }> } };

/** What happens when the publisher goes away: the window it may come back within, and whether a standard stream shows a slate meanwhile. */
export type ReconnectSettings = { reconnectWindow: number; useSlateForStandardLatency: boolean };

/** A generated_subtitles entry: the broadcast is captioned live in this language. */
export type GeneratedSubtitles = { name: string; language_code: string };

export const createLiveStream = async (
  baseUrl: string,
  token: AccessToken,
  latencyMode: LatencyMode,
  reconnect: ReconnectSettings = { reconnectWindow: 0, useSlateForStandardLatency: false },
  { generatedSubtitles = [] }: { generatedSubtitles?: GeneratedSubtitles[] } = {},
): Promise<BenchLiveStream> => {
  const url = `${baseUrl}/video/v1/live-streams`;
  const response = await request({
    url,
    method: 'POST',
    headers: { authorization: basicAuth(token.id, token.secret), 'content-type': 'application/json' },
    body: JSON.stringify({
      playback_policies: ['public'],
      latency_mode: latencyMode,
      reconnect_window: reconnect.reconnectWindow,
      use_slate_for_standard_latency: reconnect.useSlateForStandardLatency,
      ...(generatedSubtitles.length > 0 && { generated_subtitles: generatedSubtitles }),
    }),
  });
  const text = response.body.toString('utf8');
  if (response.status !== 201) throw new HttpStatusError(response.status, url, text.slice(0, 300));
  const data = (JSON.parse(text) as CreateResponse).data;
  const playbackId = data?.playback_ids?.[0]?.id;
  if (!data?.id || !data.stream_key || !data.srt_passphrase || !playbackId) throw new Error(`POST ${url} returned no id, stream key, SRT passphrase or playback ID`);
  return { id: data.id, streamKey: data.stream_key, srtPassphrase: data.srt_passphrase, playbackId, latencyMode };
};

export const rtmpUrlOf = (rtmpPort: number, stream: BenchLiveStream): string => `rtmp://127.0.0.1:${rtmpPort}/app/${stream.streamKey}`;

export const srtUrlOf = (srtPort: number, stream: BenchLiveStream): string => `srt://127.0.0.1:${srtPort}?streamid=${stream.streamKey}&passphrase=${stream.srtPassphrase}`;

export const multivariantUrlOf = (baseUrl: string, stream: BenchLiveStream): string => `${baseUrl}/${stream.playbackId}.m3u8`;

/** Text safe to report: every stream key and SRT passphrase replaced. */
export const redactKeys = (text: string, streams: readonly BenchLiveStream[]): string =>
  streams.reduce((redacted, stream) => redacted.split(stream.streamKey).join('<stream key>').split(stream.srtPassphrase).join('<passphrase>'), text);

/** Waits until the server has no ffmpeg child left (the last broadcast's packager has flushed and gone). */
export const waitForNoPackagers = async (serverPid: number | undefined, timeoutMs = 20_000): Promise<boolean> => {
  if (serverPid === undefined) return true;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (ffmpegDescendants(serverPid).length === 0) return true;
    await sleep(200);
  }
  return false;
};

/** Ends the broadcast now, as an integrator's "complete" does: no reconnect window (nor slate) left running. */
export const completeLiveStream = async (baseUrl: string, token: AccessToken, stream: BenchLiveStream): Promise<void> => {
  const url = `${baseUrl}/video/v1/live-streams/${stream.id}/complete`;
  const response = await request({ url, method: 'PUT', headers: { authorization: basicAuth(token.id, token.secret) } });
  if (response.status !== 200) throw new HttpStatusError(response.status, url, response.body.toString('utf8').slice(0, 300));
};

/** A simulcast target of `stream`, created through the API as an integrator would; returns its id. */
export const createSimulcastTarget = async (baseUrl: string, token: AccessToken, stream: BenchLiveStream, target: { url: string; stream_key: string }): Promise<string> => {
  const url = `${baseUrl}/video/v1/live-streams/${stream.id}/simulcast-targets`;
  const response = await request({
    url,
    method: 'POST',
    headers: { authorization: basicAuth(token.id, token.secret), 'content-type': 'application/json' },
    body: JSON.stringify(target),
  });
  const text = response.body.toString('utf8');
  if (response.status !== 201) throw new HttpStatusError(response.status, url, text.slice(0, 300));
  const id = (JSON.parse(text) as { data?: { id?: string } }).data?.id;
  if (!id) throw new Error(`POST ${url} returned no id`);
  return id;
};
