import { streamCopyOutputArgs } from './stream-copy-output';

// ffmpeg arguments for one SRT caller's listener (see lib/ingest/srt/srt-gateway.ts): libsrt in
// listener mode on a loopback port, taking the caller's MPEG-TS and publishing it unchanged as FLV
// to the node's own RTMP server, so an SRT broadcast is the same RTMP session as any other (key
// checks, packager, recording). No re-encode: a copy of H.264 and AAC costs next to nothing.

export type SrtRelayInput = {
  /** The loopback UDP port the gateway relays the caller's datagrams to. */
  listenPort: number;
  /** The stream's SRT passphrase: libsrt refuses a caller without it or with another one. */
  passphrase: string | null;
  /**
   * rtmp://127.0.0.1:{port}/app/{key}?relay={token}: holds the stream key, so never log these
   * arguments unredacted, nor ffmpeg's stderr.
   */
  publishUrl: string;
};

const PROBE_MICROSECONDS = 500_000;
// The listener gives up if the gateway's replayed handshake never comes (the caller left).
const LISTEN_TIMEOUT_MICROSECONDS = 5_000_000;

export const srtListenerUrl = ({ listenPort, passphrase }: Pick<SrtRelayInput, 'listenPort' | 'passphrase'>): string => {
  const query = new URLSearchParams({ mode: 'listener', listen_timeout: String(LISTEN_TIMEOUT_MICROSECONDS) });
  if (passphrase !== null) query.set('passphrase', passphrase);
  return `srt://127.0.0.1:${listenPort}?${query.toString()}`;
};

export const buildSrtRelayArgs = (input: SrtRelayInput): string[] => [
  '-hide_banner',
  '-nostdin',
  '-v',
  'error',
  // The stream's parameters come in-band (SPS with the first keyframe, ADTS headers): probing stops
  // once every stream has them, not after estimating a frame rate from 20 frames, and never reads
  // more than half a second. The probed packets are then copied out, not dropped (`-fflags
  // nobuffer` would drop them: measured, a 3 s publish came out empty).
  '-fpsprobesize',
  '0',
  '-analyzeduration',
  String(PROBE_MICROSECONDS),
  '-i',
  srtListenerUrl(input),
  ...streamCopyOutputArgs(input.publishUrl),
];
