import type { Logger } from 'pino';

// HELPER-OWNED: replaced by the helper implementing this track kind.
export const generateCaptions = async ({ trackId }: { trackId: string; signal: AbortSignal; log: Logger }): Promise<void> => {
  throw new Error(`generateCaptions is not built yet (track ${trackId})`);
};
