import { getEnv } from '../../env';

export type LiveIngest = {
  /** What publishers connect to, `rtmp://host:port/app`; the stream key follows as the last path segment. */
  rtmpUrl: string;
  /** False when this node runs without an RTMP listener (RTMP_PORT=0). */
  rtmpEnabled: boolean;
  /** Where `/{playback_id}.m3u8` is served (STREAM_URL, or the base URL). */
  streamUrl: string;
};

// The addresses the live stream page shows: where to publish and where the preview plays from.
export const liveIngest = (): LiveIngest => {
  const env = getEnv();
  return { rtmpUrl: env.live.rtmpUrl, rtmpEnabled: env.live.rtmpPort !== null, streamUrl: env.streamUrl };
};
