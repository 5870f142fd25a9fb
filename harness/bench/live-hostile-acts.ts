import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { basicAuth, request } from '../http';
import type { AccessToken } from './bench-server';
import type { BenchLiveStream } from './live-api';
import { startLivePublisher } from './live-processes';
import { sleep } from '../stats';

// The hostile inputs of the live bench's hostile case (live-hostile.ts), each done once and timed
// from the act to its answer: a publisher that should be refused at connect, junk on the RTMP port
// (../rtmp-junk.ts), a malformed simulcast target URL posted to the API, and the two
// local servers that play bad simulcast target and bad slate image.

const REFUSAL_TIMEOUT_MS = 15_000;

/**
 * What ffmpeg said about the failure: its last message from a component (`[srt @ 0x…] …`) without
 * the prefix, the ingest URL in it replaced (it carries the key and passphrase), then redacted.
 */
const ffmpegSaid = (stderr: string, redact: (text: string) => string): string => {
  const lines = stderr.trim().split('\n').filter(Boolean);
  const said = lines.filter((line) => /^\[[\w-]+ @ 0x[0-9a-f]+\]/.test(line)).at(-1) ?? lines.at(-1) ?? '';
  return redact(said.replace(/^\[[\w-]+ @ 0x[0-9a-f]+\] /, '').replace(/(srt|rtmps?):\/\/\S+/g, '<ingest URL>')).slice(0, 300);
};

export type PublisherAnswer = { refused: boolean; afterMs: number; exitCode: number | null; said: string };

/**
 * A publisher (ffmpeg, the 720p input copied) that the server should refuse at connect: ffmpeg's
 * exit after its spawn (its own start-up included) and what it printed; not refused if it still
 * runs 15 s later (then stopped).
 */
export const publishExpectingRefusal = async ({ inputPath, ingestUrl, redact }: { inputPath: string; ingestUrl: string; redact: (text: string) => string }): Promise<PublisherAnswer> => {
  const publisher = startLivePublisher({ inputPath, ingestUrl });
  const exited = await Promise.race([publisher.exited.then((code) => ({ code })), sleep(REFUSAL_TIMEOUT_MS).then(() => null)]);
  const afterMs = Date.now() - publisher.startedAtMs;
  if (exited === null) await publisher.stop();
  const said = ffmpegSaid(publisher.stderr(), redact);
  return exited === null ? { refused: false, afterMs, exitCode: null, said } : { refused: exited.code !== 0, afterMs, exitCode: exited.code, said };
};

export type ApiAnswer = { status: number; errorType: string | null; messages: string[]; afterMs: number };

/** POST a simulcast target to `stream` and read the answer as Mux's error shape ({ error: { type, messages } }). */
export const postSimulcastTarget = async (baseUrl: string, token: AccessToken, stream: BenchLiveStream, body: Record<string, unknown>): Promise<ApiAnswer> => {
  const startedAtMs = Date.now();
  const response = await request({
    url: `${baseUrl}/video/v1/live-streams/${stream.id}/simulcast-targets`,
    method: 'POST',
    headers: { authorization: basicAuth(token.id, token.secret), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const afterMs = Date.now() - startedAtMs;
  let parsed: { error?: { type?: unknown; messages?: unknown } } = {};
  try {
    parsed = JSON.parse(response.body.toString('utf8')) as typeof parsed;
  } catch {
    // not JSON: no error shape
  }
  const messages = Array.isArray(parsed.error?.messages) ? parsed.error.messages.map(String) : [];
  return { status: response.status, errorType: typeof parsed.error?.type === 'string' ? parsed.error.type : null, messages, afterMs };
};

/**
 * A reduced-latency stream with a reconnect window (so its broadcast fetches the slate when it
 * starts) whose reconnect_slate_url is `slateUrl`; created through the API as an integrator would.
 */
export const createStreamWithSlate = async (baseUrl: string, token: AccessToken, slateUrl: string): Promise<BenchLiveStream> => {
  const url = `${baseUrl}/video/v1/live-streams`;
  const response = await request({
    url,
    method: 'POST',
    headers: { authorization: basicAuth(token.id, token.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ playback_policies: ['public'], latency_mode: 'reduced', reconnect_window: 10, reconnect_slate_url: slateUrl }),
  });
  const text = response.body.toString('utf8');
  const data = (JSON.parse(text) as { data?: { id?: string; stream_key?: string; srt_passphrase?: string; playback_ids?: Array<{ id?: string }> } }).data;
  const playbackId = data?.playback_ids?.[0]?.id;
  if (response.status !== 201 || !data?.id || !data.stream_key || !data.srt_passphrase || !playbackId) throw new Error(`POST ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return { id: data.id, streamKey: data.stream_key, srtPassphrase: data.srt_passphrase, playbackId, latencyMode: 'reduced' };
};

export type LocalServer = { port: number; hits: () => number; close: () => Promise<void> };

const closeServer = (server: net.Server, sockets: Set<net.Socket>): Promise<void> => {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
};

/** A simulcast target that accepts each connection, reads what comes first, then drops it. */
export const startAcceptThenClose = async (): Promise<LocalServer> => {
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, hits: () => accepted, close: () => closeServer(server, sockets) };
};

/** A reconnect slate URL that answers 200 with an HTML page (text/html), not an image. */
export const startNotAnImage = async (): Promise<LocalServer> => {
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><body>${'<p>not a picture</p>'.repeat(40)}</body></html>`);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, hits: () => requests, close: () => closeServer(server, sockets) };
};

export type StreamStatus = { status: string | null; targets: Array<{ id: string; status: string; errorSeverity: string | null }> };

/** The live stream's status and its simulcast targets' statuses, as the API reports them now. */
export const liveStreamStatus = async (baseUrl: string, token: AccessToken, stream: BenchLiveStream): Promise<StreamStatus> => {
  const response = await request({ url: `${baseUrl}/video/v1/live-streams/${stream.id}`, headers: { authorization: basicAuth(token.id, token.secret) } });
  type Target = { id?: string; status?: string; error_severity?: string };
  const data = response.status === 200 ? (JSON.parse(response.body.toString('utf8')) as { data?: { status?: string; simulcast_targets?: Target[] } }).data : undefined;
  return {
    status: data?.status ?? null,
    targets: (data?.simulcast_targets ?? []).map((target) => ({ id: target.id ?? '', status: target.status ?? '', errorSeverity: target.error_severity ?? null })),
  };
};
