// The end-to-end suite a second time against the scaled-out configuration (E2E_CLUSTER=1): every
// server a spec starts is two app nodes and a worker on PostgreSQL + Redis + S3 (Swift, started
// once for the run) behind a round-robin nginx; see e2e/support/keyframe-cluster.ts. Needs the
// PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) CI machines run: a machine without them
// skips it, saying so, so `npm test` still passes on a fresh machine.
//
//   npm run test:e2e:cluster                       # the api project and the playback specs below
//   npm run test:e2e:cluster -- --project playback # any playwright arguments instead
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
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
// The api project runs (it is also the suite's PostgreSQL run) but for the specs whose outcome
// depends neither on the nodes nor on the database: request validation answered before any storage
// (errors), what ffprobe makes of broken inputs (ingest-failures), one process's own readiness probe
// (health), one process restarted on its DATA_DIR (restart: the cluster's restarts, of an app node
// and of the worker, are api/cluster.spec's), the scores of one encode (quality-report), a webhook
// receiver's retries and one process's SIGTERM (webhooks: delivery exactly once by several nodes is
// api/cluster.spec's) and an upload's validation and limits (uploads: chunks spread over the nodes
// are api/cluster.spec's and playback/upchunk.spec's). Of the playback project, the specs where
// several nodes change the outcome: a segment, image, audio or text track made on one node and
// served by another through the bucket, the segment lock, a change (signing key, restriction,
// deletion) every node must hear of, an upload or a player spread over the nodes. What a single
// encode produces (ladders, playlists' syntax, watermarks, byte-identical re-encodes, steering under
// load, segments splicing gaplessly, one process's encoders and counters) does not depend on the node
// that made it, and is left to the default run; text tracks through the bucket are
// api/text-tracks.spec's. Each spec file starts a cluster of its own (~15–25 s on two loaded
// cores), so a spec only runs here for what a cluster can change.
const CLUSTER_PLAYBACK_SPECS = [
  'jit',
  'images',
  'signed-playback',
  'audio-tracks',
  'added-audio-tracks',
  'captions',
  'player',
  'player-analytics',
  'upchunk',
];
const specFilter = (project, name) => `e2e/${project}/${name}\\.spec\\.ts$`;
// File filters first: --project takes every value after it.
const API_SPECS_LEFT_TO_THE_DEFAULT_RUN = new Set(['errors', 'ingest-failures', 'health', 'restart', 'quality-report', 'webhooks', 'uploads']);
const clusterApiSpecs = readdirSync(new URL('../e2e/api/', import.meta.url))
  .filter((file) => file.endsWith('.spec.ts'))
  .map((file) => file.slice(0, -'.spec.ts'.length))
  .filter((name) => !API_SPECS_LEFT_TO_THE_DEFAULT_RUN.has(name));
// Of the live project, the one spec about live on several nodes; the rest is the default run's.
const CLUSTER_LIVE_SPECS = ['cluster'];
const DEFAULT_ARGS = [
  ...clusterApiSpecs.map((name) => specFilter('api', name)),
  ...CLUSTER_PLAYBACK_SPECS.map((name) => specFilter('playback', name)),
  ...CLUSTER_LIVE_SPECS.map((name) => specFilter('live', name)),
  '--project',
  'api',
  '--project',
  'playback',
  '--project',
  'live',
];

const requested = process.argv.slice(2);
const playwright = (args, env = {}) =>
  spawnSync('npx', ['playwright', 'test', '-c', 'e2e', ...args], { stdio: 'inherit', env: { ...process.env, E2E_CLUSTER: '1', ...env } }).status ?? 1;
const startedAt = Date.now();
const status = playwright(requested.length > 0 ? requested : DEFAULT_ARGS);
console.log(`e2e on the cluster: ${Math.round((Date.now() - startedAt) / 1000)} s`);
// The chaos soak, shortened, alone: beside other specs its four nodes would starve them and be starved
// (its report and artifacts: e2e/.artifacts/report-chaos, results-chaos).
let chaosStatus = 0;
if (requested.length === 0) {
  const chaosStartedAt = Date.now();
  chaosStatus = playwright(['--project', 'chaos'], { E2E_RUN_NAME: 'chaos' });
  console.log(`chaos soak on the cluster: ${Math.round((Date.now() - chaosStartedAt) / 1000)} s`);
}
process.exit(status !== 0 ? status : chaosStatus);
