// Types for free-port.mjs (plain JavaScript, so the test object store's script can use it too).
export declare const portBlockStart: (slot?: string, pid?: number) => number;
export declare const freePort: () => Promise<number>;
