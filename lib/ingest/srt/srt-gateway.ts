import { createHmac, randomBytes } from 'node:crypto';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import type { Logger } from 'pino';
import { withTimeout } from '../../utils/with-timeout';
import { normalizeAddress, redactStreamKey } from '../rtmp/stream-path';
import {
  HANDSHAKE_TYPE,
  inductionAnswer,
  inductionFor,
  isRejection,
  readHandshake,
  readStreamId,
  REJECT_REASON,
  rejectionOf,
  withCookie,
  type RejectReason,
} from './srt-handshake';
import { parseSrtStreamId } from './srt-stream-id';

// SRT ingest on one UDP port for every stream, as Mux has it (`srt://host:6001?streamid={key}`).
// No maintained SRT library is on npm, and ffmpeg's libsrt listener neither reads the stream id nor
// takes more than one caller, so the gateway does the one part of SRT that needs to know the
// stream: it answers each caller's induction, reads the stream id from its conclusion, checks the
// key, and starts that connection's own listener (a loopback ffmpeg, `openRelay`) with the
// stream's passphrase. It then replays the handshake to that listener and relays every datagram
// both ways, unread: libsrt on each side does the transport (retransmission, latency, and the
// encryption, so a wrong passphrase is refused by the listener, not here).

export type SrtAdmission = { accept: true; passphrase: string | null } | { accept: false; reason: string; conflict?: boolean };

/** A listener for one caller, on a loopback UDP port; `done` resolves when it has exited. */
export type SrtRelay = { port: number; done: Promise<void>; stop(): void };

export type SrtGatewayOptions = {
  port: number;
  host?: string;
  admit(streamKey: string, info: { remoteAddress: string }): Promise<SrtAdmission>;
  /**
   * Starts the caller's listener. `firstDataAt` is when the caller's first media datagram passed
   * the gateway (null before): when its media reached the ingest, the origin of its dates.
   */
  openRelay(request: { streamKey: string; passphrase: string | null; remoteAddress: string; firstDataAt: () => number | null }): Promise<SrtRelay>;
  log: Logger;
};

export type SrtGateway = { readonly port: number; close(): Promise<void> };

type CallerState = 'admitting' | 'connecting' | 'relaying' | 'rejected';

type Caller = {
  id: string;
  address: string;
  port: number;
  state: CallerState;
  /** The caller's latest conclusion: it repeats it until answered. */
  conclusion: Buffer;
  rejection: Buffer | null;
  listenerCookie: number | null;
  upstream: Socket | null;
  relay: SrtRelay | null;
  lastHeardAt: number;
  firstDataAt: number | null;
  log: Logger;
};

// libsrt's callers give up after connect_timeout (3 s by default): a listener not answering by then
// is not coming.
const LISTENER_ANSWER_TIMEOUT_MS = 3_000;
const INDUCTION_RETRY_MS = 100;
const ADMIT_TIMEOUT_MS = 2_500;
// libsrt breaks a connection after 5 s without a packet (SRTO_PEERIDLETIMEO); the listener's
// ffmpeg then exits. This is only for a listener that somehow does not.
const SILENT_CALLER_MS = 15_000;
// A refused caller's repeated conclusions get the same answer for a while, then are forgotten.
const REJECTED_KEPT_MS = 5_000;
// Callers between their conclusion and a working relay, at most: beyond it conclusions are dropped
// (the caller retries), so a flood of fake callers cannot start listeners without end.
const MAX_PENDING_CALLERS = 32;
const COOKIE_PERIOD_MS = 60_000;
const SWEEP_MS = 1_000;

export async function startSrtGateway(options: SrtGatewayOptions): Promise<SrtGateway> {
  const { log } = options;
  const socket = createSocket(options.host?.includes(':') ? 'udp6' : 'udp4');
  const callers = new Map<string, Caller>();
  const cookieSecret = randomBytes(32);
  let closing = false;

  // SYN cookies, as SRT listeners make them: a caller's conclusion must bring back the cookie its
  // address got, so a spoofed source address cannot make the gateway start listeners.
  const cookieFor = (address: string, port: number, period = Math.floor(Date.now() / COOKIE_PERIOD_MS)): number =>
    createHmac('sha256', cookieSecret).update(`${address}|${port}|${period}`).digest().readUInt32BE(0);
  const isOurCookie = (address: string, port: number, cookie: number): boolean => {
    const period = Math.floor(Date.now() / COOKIE_PERIOD_MS);
    return cookie === cookieFor(address, port, period) || cookie === cookieFor(address, port, period - 1);
  };

  const toCaller = (caller: Caller, packet: Buffer) => {
    if (!closing) socket.send(packet, caller.port, caller.address);
  };

  const release = (caller: Caller) => {
    caller.relay?.stop();
    caller.relay = null;
    caller.upstream?.close();
    caller.upstream = null;
  };

  const end = (caller: Caller, reason: string) => {
    if (callers.get(caller.id) !== caller) return;
    callers.delete(caller.id);
    release(caller);
    caller.log.info({ reason }, 'srt caller ended');
  };

  const reject = (caller: Caller, reason: RejectReason, why: string) => {
    release(caller);
    caller.state = 'rejected';
    caller.rejection = rejectionOf(caller.conclusion, reason);
    caller.lastHeardAt = Date.now();
    caller.log.info({ reason: why }, 'srt publish refused');
    toCaller(caller, caller.rejection);
  };

  const onListenerPacket = (caller: Caller, packet: Buffer) => {
    const handshake = readHandshake(packet);
    if (handshake?.type === HANDSHAKE_TYPE.induction) {
      if (caller.state !== 'connecting') return;
      caller.listenerCookie = handshake.cookie;
      caller.state = 'relaying';
      caller.upstream?.send(withCookie(caller.conclusion, handshake.cookie));
      return;
    }
    toCaller(caller, packet);
    if (handshake && isRejection(handshake)) {
      // The listener refused the caller's handshake: a wrong or missing passphrase, most often.
      caller.log.info({ listenerReason: handshake.type - 1000 }, 'srt publish refused by the stream listener (passphrase?)');
      release(caller);
      caller.state = 'rejected';
      caller.rejection = packet;
    }
  };

  const connectToListener = async (caller: Caller, relay: SrtRelay) => {
    const upstream = createSocket('udp4');
    caller.upstream = upstream;
    upstream.on('message', (packet) => onListenerPacket(caller, packet));
    // A listener not yet bound answers with ICMP unreachable; the next induction tries again.
    upstream.on('error', () => undefined);
    await new Promise<void>((resolve) => upstream.connect(relay.port, '127.0.0.1', resolve));
    const induction = inductionFor(caller.conclusion);
    const giveUpAt = Date.now() + LISTENER_ANSWER_TIMEOUT_MS;
    while (caller.state === 'connecting' && caller.upstream === upstream) {
      if (Date.now() > giveUpAt) return reject(caller, REJECT_REASON.unavailable, 'the stream listener did not answer');
      upstream.send(induction);
      await delay(INDUCTION_RETRY_MS);
    }
  };

  const admitAndConnect = async (caller: Caller) => {
    const target = parseSrtStreamId(readStreamId(caller.conclusion));
    if (!target.ok) return reject(caller, REJECT_REASON.badRequest, target.reason);
    caller.log = caller.log.child({ streamKey: redactStreamKey(target.streamKey) });
    const admission = await withTimeout(options.admit(target.streamKey, { remoteAddress: caller.address }), ADMIT_TIMEOUT_MS, 'stream key check timed out').catch((error: unknown) => {
      caller.log.error({ error: error instanceof Error ? error.message : String(error) }, 'srt stream key check failed');
      const failed: SrtAdmission = { accept: false, reason: 'stream key check failed' };
      return failed;
    });
    if (callers.get(caller.id) !== caller) return;
    if (!admission.accept) return reject(caller, admission.conflict ? REJECT_REASON.conflict : REJECT_REASON.forbidden, admission.reason);
    const relay = await options.openRelay({ streamKey: target.streamKey, passphrase: admission.passphrase, remoteAddress: caller.address, firstDataAt: () => caller.firstDataAt });
    if (callers.get(caller.id) !== caller || caller.state !== 'admitting') return relay.stop();
    caller.relay = relay;
    caller.state = 'connecting';
    void relay.done.then(() => {
      if (caller.relay === relay) end(caller, 'the stream listener exited');
    });
    await connectToListener(caller, relay);
  };

  const onConclusion = (packet: Buffer, from: RemoteInfo, cookie: number) => {
    const id = `${from.address}|${from.port}`;
    const known = callers.get(id);
    if (known) {
      known.lastHeardAt = Date.now();
      if (known.state === 'rejected' && known.rejection) toCaller(known, known.rejection);
      else if (known.state === 'relaying' && known.listenerCookie !== null) known.upstream?.send(withCookie(packet, known.listenerCookie));
      else known.conclusion = Buffer.from(packet);
      return;
    }
    if (!isOurCookie(from.address, from.port, cookie)) return;
    const pending = [...callers.values()].filter((caller) => caller.state === 'admitting' || caller.state === 'connecting').length;
    if (pending >= MAX_PENDING_CALLERS) return;
    const caller: Caller = {
      id,
      address: normalizeAddress(from.address),
      port: from.port,
      state: 'admitting',
      conclusion: Buffer.from(packet),
      rejection: null,
      listenerCookie: null,
      upstream: null,
      relay: null,
      lastHeardAt: Date.now(),
      firstDataAt: null,
      log: log.child({ srtCaller: `${normalizeAddress(from.address)}:${from.port}` }),
    };
    callers.set(id, caller);
    caller.log.info('srt caller connecting');
    admitAndConnect(caller).catch((error: unknown) => {
      caller.log.error({ error: error instanceof Error ? error.message : String(error) }, 'srt connection failed');
      if (callers.get(caller.id) === caller && caller.state !== 'rejected') reject(caller, REJECT_REASON.unavailable, 'internal error');
    });
  };

  socket.on('message', (packet, from) => {
    if (closing) return;
    const handshake = readHandshake(packet);
    if (handshake?.type === HANDSHAKE_TYPE.induction) {
      // A new connection from an address that had one (the same UDP port reused) replaces it.
      const previous = callers.get(`${from.address}|${from.port}`);
      if (previous && previous.state !== 'rejected') end(previous, 'the caller connected again');
      socket.send(inductionAnswer(packet, { cookie: cookieFor(from.address, from.port), socketId: handshake.socketId }), from.port, from.address);
      return;
    }
    if (handshake?.type === HANDSHAKE_TYPE.conclusion) return onConclusion(packet, from, handshake.cookie);
    const caller = callers.get(`${from.address}|${from.port}`);
    if (!caller || caller.state !== 'relaying') return;
    caller.lastHeardAt = Date.now();
    if (caller.firstDataAt === null && handshake === null) caller.firstDataAt = caller.lastHeardAt;
    caller.upstream?.send(packet);
  });
  socket.on('error', (error) => log.error({ error: error.message }, 'srt listener error'));

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const caller of callers.values()) {
      const silentMs = now - caller.lastHeardAt;
      if (caller.state === 'rejected' && silentMs > REJECTED_KEPT_MS) callers.delete(caller.id);
      else if (caller.state === 'relaying' && silentMs > SILENT_CALLER_MS) end(caller, `no packet for ${silentMs} ms`);
    }
  }, SWEEP_MS);
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(options.port, options.host, () => {
      socket.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    clearInterval(sweep);
    socket.close();
    throw error;
  });
  const port = socket.address().port;
  log.info({ port }, 'srt ingest listening');

  return {
    port,
    close: async () => {
      if (closing) return;
      closing = true;
      clearInterval(sweep);
      for (const caller of [...callers.values()]) end(caller, 'server closed');
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
