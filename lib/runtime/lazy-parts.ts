// A runtime whose parts are made on first use, as each was before it had an owner: a CLI command
// that never encodes makes no encoder, and a node without Redis opens no connection.
type Factories<T> = { [K in keyof T]: () => T[K] };

export const lazyParts = <T extends object>(factories: Factories<T>): T => {
  const parts = {} as T;
  for (const key of Object.keys(factories) as (keyof T)[]) {
    let made = false;
    let value: T[typeof key];
    Object.defineProperty(parts, key, {
      enumerable: true,
      get: () => {
        if (!made) {
          value = factories[key]();
          made = true;
        }
        return value;
      },
    });
  }
  return parts;
};
