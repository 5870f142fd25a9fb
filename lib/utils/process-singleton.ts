// Next.js bundles route handlers separately from the server entry that tsx runs, so a module can be
// instantiated more than once in one process. State that must be shared process-wide (the database
// client, the job-queue wake-up signal, abort handles) is keyed on globalThis instead.
export const processSingleton = <T>(key: string, create: () => T): T => {
  const symbol = Symbol.for(`keyframe.${key}`);
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  const existing = store[symbol];
  if (existing !== undefined) return existing;
  const created = create();
  store[symbol] = created;
  return created;
};
