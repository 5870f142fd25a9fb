import { getEnv } from '../../env';

export type LiveIngest = {
  /** What publishers connect to, `rtmp://host:port/app`; the stream key follows as the last path segment. */
  rtmpUrl: string;
  /** False when this node runs without an RTMP listener (RTMP_PORT=0). */
  rtmpEnabled: boolean;
  /** The same over TLS, `rtmps://host:port/app`; null when RTMPS is off (RTMPS_PORT=0) or RTMP is. */
  rtmpsUrl: string | null;
  /** RTMPS presents a self-signed certificate (no RTMPS_CERT_FILE): encoders that check certificates must be told to trust it. */
  rtmpsSelfSigned: boolean;
  /** SRT, `srt://host:port`; a publisher adds `?streamid={stream_key}&passphrase={srt_passphrase}`. Null when SRT is off (SRT_PORT=0) or RTMP is. */
  srtUrl: string | null;
  /** Where `/{playback_id}.m3u8` is served (STREAM_URL, or the base URL). */
  streamUrl: string;
};

// The addresses the live stream page shows: where to publish and where the preview plays from.
export const liveIngest = (): LiveIngest => {
  const env = getEnv();
  const rtmpEnabled = env.live.rtmpPort !== null;
  return {
    rtmpUrl: env.live.rtmpUrl,
    rtmpEnabled,
    rtmpsUrl: rtmpEnabled && env.live.rtmps.port !== null ? env.live.rtmps.url : null,
    rtmpsSelfSigned: env.live.rtmps.certFile === undefined,
    // SRT broadcasts are relayed into the RTMP server, so they need it running.
    srtUrl: rtmpEnabled && env.live.srt.port !== null ? env.live.srt.url : null,
    streamUrl: env.streamUrl,
  };
};
