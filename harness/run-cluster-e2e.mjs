// The end-to-end suite a second time against the scaled-out configuration (E2E_CLUSTER=1): every
// server a spec starts is two app nodes and a worker on PostgreSQL + Redis + S3 (Swift, started
// once for the run) behind a round-robin nginx; see e2e/support/keyframe-cluster.ts. Needs the
// PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) CI machines run: a machine without them
// skips it, saying so, so `npm test` still passes on a fresh machine.
//
//   npm run test:e2e:cluster                       # the api project and the playback specs below
//   npm run test:e2e:cluster -- --project playback # any playwright arguments instead
import { spawnSync } from 'node:child_process';
import { portAnswers } from './port-answers.mjs';

const HOST = '127.0.0.1';
const SERVICES = [
  { name: 'PostgreSQL', port: 5432 },
  { name: 'Redis', port: 6379 },
];


for (const service of SERVICES) {
  if (!(await portAnswers(HOST, service.port))) {
    console.log(`${service.name} does not answer at ${HOST}:${service.port}; skipping the e2e suite on the scaled-out cluster.`);
    process.exit(0);
  }
}
// The whole api project runs (it is also the suite's PostgreSQL run). Of the playback project,
// the specs where several nodes change the outcome: a segment, image, audio or text track made on
// one node and served by another through the bucket, the segment lock, a change (signing key,
// restriction, deletion) every node must hear of, an upload or a player spread over the nodes.
// What a single encode produces (ladders, playlists' syntax, watermarks, byte-identical re-encodes,
// steering under load) does not depend on the node that made it, and is left to the default run.
const CLUSTER_PLAYBACK_SPECS = [
  'jit',
  'jit-pressure',
  'images',
  'signed-playback',
  'audio-tracks',
  'added-audio-tracks',
  'audio-continuity',
  'subtitles',
  'captions',
  'player',
  'player-analytics',
  'upchunk',
  'metrics',
];
const specFilter = (project, name) => `e2e/${project}/${name}\\.spec\\.ts$`;
// File filters first: --project takes every value after it.
const DEFAULT_ARGS = ['e2e/api/', ...CLUSTER_PLAYBACK_SPECS.map((name) => specFilter('playback', name)), '--project', 'api', '--project', 'playback'];

const requested = process.argv.slice(2);
const startedAt = Date.now();
const run = spawnSync('npx', ['playwright', 'test', '-c', 'e2e', ...(requested.length > 0 ? requested : DEFAULT_ARGS)], {
  stdio: 'inherit',
  env: { ...process.env, E2E_CLUSTER: '1' },
});
console.log(`e2e on the cluster: ${Math.round((Date.now() - startedAt) / 1000)} s`);
process.exit(run.status ?? 1);
