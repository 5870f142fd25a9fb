import type { Measurement } from './measurements';
import type { ViewSummary } from './view-summary';

// The Data API metrics Keyframe computes, from the stored per-view columns. Units follow Mux:
// times in ms, "percentage" metrics as fractions (0.02 = 2 %), rebuffer frequency per minute.
// `views` and `unique_viewers` count views; every other metric measures one value per view
// (null: the view has none and is left out) with the metric's default measurement.

export type MetricView = { id: string } & Pick<
  ViewSummary,
  | 'muxViewerId'
  | 'watchTimeMs'
  | 'playingTimeMs'
  | 'startupTimeMs'
  | 'rebufferCount'
  | 'rebufferDurationMs'
  | 'rebufferPercentage'
  | 'seekLatencyMs'
  | 'playbackFailure'
  | 'videoStartupFailure'
  | 'exitBeforeVideoStart'
>;

type PerViewMetric = {
  kind: 'per_view';
  perView: (view: MetricView) => number | null;
  defaultMeasurement: Measurement;
  /** Whether a higher value is worse for viewers (startup time, rebuffering), for negative_impact. */
  higherIsWorse: boolean;
};

export type MetricDefinition = PerViewMetric | { kind: 'views' | 'unique_viewers'; defaultMeasurement: 'count'; higherIsWorse: false };

const started = (view: MetricView) => view.watchTimeMs > 0 && !view.exitBeforeVideoStart && !view.videoStartupFailure;
const flag = (value: boolean) => (value ? 1 : 0);

export const METRICS: Readonly<Record<string, MetricDefinition>> = {
  views: { kind: 'views', defaultMeasurement: 'count', higherIsWorse: false },
  unique_viewers: { kind: 'unique_viewers', defaultMeasurement: 'count', higherIsWorse: false },
  playing_time: { kind: 'per_view', perView: (view) => view.playingTimeMs, defaultMeasurement: 'sum', higherIsWorse: false },
  video_startup_time: { kind: 'per_view', perView: (view) => view.startupTimeMs, defaultMeasurement: 'median', higherIsWorse: true },
  rebuffer_percentage: {
    kind: 'per_view',
    perView: (view) => (started(view) ? (view.rebufferPercentage ?? 0) : null),
    defaultMeasurement: 'avg',
    higherIsWorse: true,
  },
  rebuffer_count: { kind: 'per_view', perView: (view) => (started(view) ? view.rebufferCount : null), defaultMeasurement: 'median', higherIsWorse: true },
  rebuffer_duration: { kind: 'per_view', perView: (view) => (started(view) ? view.rebufferDurationMs : null), defaultMeasurement: 'median', higherIsWorse: true },
  rebuffer_frequency: {
    kind: 'per_view',
    perView: (view) => (started(view) ? view.rebufferCount / (view.watchTimeMs / 60_000) : null),
    defaultMeasurement: 'avg',
    higherIsWorse: true,
  },
  seek_latency: { kind: 'per_view', perView: (view) => view.seekLatencyMs, defaultMeasurement: 'avg', higherIsWorse: true },
  exits_before_video_start: { kind: 'per_view', perView: (view) => flag(view.exitBeforeVideoStart), defaultMeasurement: 'avg', higherIsWorse: true },
  playback_failure_percentage: { kind: 'per_view', perView: (view) => flag(view.playbackFailure), defaultMeasurement: 'avg', higherIsWorse: true },
  video_startup_failure_percentage: { kind: 'per_view', perView: (view) => flag(view.videoStartupFailure), defaultMeasurement: 'avg', higherIsWorse: true },
};

export const METRIC_IDS = Object.keys(METRICS);
