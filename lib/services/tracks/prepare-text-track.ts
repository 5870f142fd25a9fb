import type { Logger } from 'pino';

// HELPER-OWNED: replaced by the helper implementing this track kind.
export const prepareTextTrack = async ({ trackId }: { trackId: string; signal: AbortSignal; log: Logger }): Promise<void> => {
  throw new Error(`prepareTextTrack is not built yet (track ${trackId})`);
};
