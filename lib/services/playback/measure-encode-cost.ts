import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { rungCosts } from './encode-costs';
import { startFirst } from './get-multivariant-playlist';
import type { PlaybackPlan } from './playback-plan';
import { playbackState } from './playback-state';
import { ENCODE_PRIORITY } from './runtime';
import { ensureVideoSegment, storedVideoSegment } from './video-segments';

// Admission (encode-demand.ts) needs each rung's cost, measured on this machine, before a burst of
// viewers arrives; until one is known it promises real time to one viewer only. So while no video
// rung has been measured, the first asset made ready has segment 0 of its start rung encoded (a
// prefetch: it runs beside viewers' work, not before it) and kept: it is the segment a player of
// that asset asks for first, and a viewer who asks while it runs joins it instead of starting a
// second encode of the same segment. Other rungs' costs are estimated from it until they are
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
  ensureVideoSegment({ assetId, plan, rung: start, index: 0, priority: ENCODE_PRIORITY.prefetch }).catch((error: unknown) => {
    state.started = false;
    getLogger().warn({ err: error, assetId, rung: start.name }, 'measuring the encode cost failed');
  });
};
