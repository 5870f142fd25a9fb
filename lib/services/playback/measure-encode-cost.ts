import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { rungCosts } from './encode-costs';
import { startFirst } from './get-multivariant-playlist';
import type { PlaybackPlan } from './playback-plan';
import { playbackState } from './playback-state';
import { measureVideoSegmentCost, storedVideoSegment } from './video-segments';

// Admission (encode-demand.ts) needs each rung's cost, measured on this machine, before a burst of
// viewers arrives; without one it admits everybody. So while no video rung has been measured, the
// first asset made ready has segment 0 of its start rung encoded once, at normal CPU priority (a
// nice-19 run measures the machine's business, not the rung), and the result thrown away: nothing
// is stored before someone asks for it. Other rungs' costs are scaled from it until they are
// measured themselves. Like the ladder fill it is work nobody asked for, so FILL_IDLE_ENCODERS=false
// turns it off too.

const isVideoRung = (rung: string) => /^\d+p$/.test(rung);

declare module './playback-state' {
  interface PlaybackState {
    encodeCostMeasurement: { started: boolean };
  }
}

export const measureEncodeCostIfUnknown = (assetId: string, plan: PlaybackPlan): void => {
  const state = playbackState().encodeCostMeasurement;
  if (!getEnv().fillIdleEncoders || state.started || !plan.video || rungCosts().some(({ rung }) => isVideoRung(rung))) return;
  const [start] = startFirst(plan.rungs.filter((rung) => !rung.isBackground)).rungs;
  if (!start || storedVideoSegment(assetId, start, 0)) return;
  state.started = true;
  measureVideoSegmentCost({ assetId, plan, rung: start, index: 0 }).catch((error: unknown) => {
    state.started = false;
    getLogger().warn({ err: error, assetId, rung: start.name }, 'measuring the encode cost failed');
  });
};
