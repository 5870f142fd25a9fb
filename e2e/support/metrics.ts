// Prometheus text format as GET /metrics answers it, read into samples the specs can sum.

export type Sample = { name: string; labels: Record<string, string>; value: number };

export const parseMetrics = (text: string): Sample[] =>
  text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key, value]));
      return { name: match[1] as string, labels, value: Number(match[3]) };
    });

/** The sum of every series of `name` whose labels include `labels`. */
export const total = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
