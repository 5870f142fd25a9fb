// mux-embed ships its types as an ambient module that its package.json "exports" does not point at.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the only way to load an ambient module file
/// <reference path="../../node_modules/mux-embed/dist/types/mux-embed.d.ts" />
import type Hls from 'hls.js';
import type { MonitoringConfigJson } from '@/lib/schemas/dashboard-analytics';

export type PlaybackAnalytics = { videoId?: string; videoTitle?: string; streamType?: 'on-demand' | 'live' };

type MuxEmbed = (typeof import('mux-embed'))['default'];

// mux-embed watches the <video> and its hls.js instance and beacons to Keyframe's collector
// (the server's DATA_COLLECTOR_DOMAIN), so dashboard previews are counted like embedded players.
// Returns what stops it: mux-embed then sends the view's `viewend`.
export const monitorPlayback = (
  mux: MuxEmbed,
  video: HTMLVideoElement,
  { config, analytics, hls, Hls: HlsClass }: { config: MonitoringConfigJson; analytics: PlaybackAnalytics; hls?: Hls; Hls?: typeof Hls },
): (() => void) => {
  mux.monitor(video, {
    beaconCollectionDomain: config.beacon_collection_domain,
    ...(hls && { hlsjs: hls, Hls: HlsClass }),
    data: {
      env_key: config.env_key,
      player_name: 'keyframe-dashboard',
      player_init_time: Date.now(),
      video_id: analytics.videoId,
      video_title: analytics.videoTitle,
      video_stream_type: analytics.streamType,
    },
  });
  return () => mux.destroyMonitor(video);
};
