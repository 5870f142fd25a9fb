// Bundles the server entry (lib/server/main.ts and everything it imports from lib/) into one ES
// module that plain `node` runs, next to Next's own build output. Running from source under tsx
// costs ~80 MB of resident memory for the loader alone and slows every cold start; node_modules
// stay external, so this is only our own code, transpiled.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Two folders below the repository root, like lib/server/main.ts, so `projectRoot` resolves the
// same way from source and from the bundle.
export const SERVER_BUNDLE = path.join(root, '.next', 'keyframe', 'server.mjs');

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  tsconfig: path.join(root, 'tsconfig.json'),
  logLevel: 'warning',
};

// One pass for the three programs that plain `node` runs: the server, the playback workers it forks
// (lib/server/playback-workers.ts looks for them next to itself) and the CLI. The CLI's bundle is
// for the test harness: `npm run keyframe` runs the sources under tsx (always current, ~3 s of CPU
// to start), while the e2e suite's hundred-odd token and webhook commands run the bundle.
await build({
  ...common,
  entryPoints: {
    server: path.join(root, 'lib', 'server', 'main.ts'),
    'playback-worker': path.join(root, 'lib', 'server', 'playback-worker.ts'),
    cli: path.join(root, 'lib', 'cli', 'keyframe.ts'),
  },
  outdir: path.dirname(SERVER_BUNDLE),
  outExtension: { '.js': '.mjs' },
});
