// Everything one Keyframe node keeps in memory between requests lives in one object: caches,
// registries, the encoder and its scheduler, the node-event bus, the live registry, the set of
// child processes, the beacon collector, the database client, the logger. The server entry (and
// the CLI, the playback worker, the test setup) builds it with createNodeRuntime
// (lib/server/create-node-runtime.ts, which is the list of what a node holds) and installs it here.
//
// Why one process-wide slot: Next.js bundles route modules apart from the server entry, so one
// source module can be instantiated twice in a process. State keyed on globalThis is the only
// thing both copies see; this slot is the only such key.
//
// Each owner declares the type of its part by augmenting NodeRuntime from its own folder
// (`declare module '…/runtime/node-runtime'`), so this file imports nothing and every layer can
// reach the accessor without an arrow pointing up.

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface NodeRuntime {}

const SLOT = Symbol.for('keyframe.node-runtime');
type Slot = { [SLOT]?: NodeRuntime };
const slot = globalThis as Slot;

/** Makes `runtime` the one every module of this process reaches through nodeRuntime(). */
export const installNodeRuntime = <T extends NodeRuntime>(runtime: T): T => {
  slot[SLOT] = runtime;
  return runtime;
};

export const hasNodeRuntime = (): boolean => slot[SLOT] !== undefined;

/** This process's runtime. Throws if no entry point installed one. */
export const nodeRuntime = (): NodeRuntime => {
  const runtime = slot[SLOT];
  if (!runtime) {
    throw new Error('No node runtime is installed: entry points install one with installNodeRuntime(createNodeRuntime()) (lib/server/create-node-runtime.ts)');
  }
  return runtime;
};
