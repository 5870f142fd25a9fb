// A runtime part that something registers later (the server's live runtime, the playback workers,
// the first caller): empty until then.
export type Slot<T> = { current: T | null };

export const emptySlot = <T>(): Slot<T> => ({ current: null });
