// Runs `npm run build` (the Next.js app and the server bundle) when there is no production build
// yet or the sources changed since the last one, so `npm start` works on a fresh clone and after a
// `git pull`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const buildId = path.join(root, '.next', 'BUILD_ID');
const serverBundle = path.join(root, '.next', 'keyframe', 'server.mjs');
const SOURCES = ['app', 'components', 'lib', 'public', 'next.config.mjs', 'package.json', 'postcss.config.mjs', 'tsconfig.json'];
const SKIP = new Set(['node_modules', 'generated', 'generated-pg', '.next']);

const newestMtime = (entry) => {
  if (!existsSync(entry)) return 0;
  const info = statSync(entry);
  if (!info.isDirectory()) return /\.test\.tsx?$/.test(entry) ? 0 : info.mtimeMs;
  let newest = 0;
  for (const child of readdirSync(entry)) {
    if (!SKIP.has(child)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  }
  return newest;
};

const builtAt = existsSync(buildId) && existsSync(serverBundle) ? Math.min(statSync(buildId).mtimeMs, statSync(serverBundle).mtimeMs) : 0;
const changedAt = Math.max(...SOURCES.map((source) => newestMtime(path.join(root, source))));
if (builtAt > changedAt) process.exit(0);

console.log(builtAt === 0 ? '[keyframe] building the app (first run) …' : '[keyframe] sources changed; rebuilding …');
const npm = process.env.npm_execpath;
const result = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } })
  : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
process.exit(result.status ?? 1);
