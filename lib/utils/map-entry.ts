/** The entry of `key`, made by `create` and kept in `map` the first time it is asked for. */
export const entryOf = <K, V>(map: Map<K, V>, key: K, create: () => V): V => {
  const existing = map.get(key);
  if (existing !== undefined) return existing;
  const created = create();
  map.set(key, created);
  return created;
};
