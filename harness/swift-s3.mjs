// A real S3 server for tests: OpenStack Swift with its s3api middleware, from Debian's own packages
// (the only production-grade S3 implementation installable here; s3rver accepts forged signatures,
// so it cannot be the S3 the suite trusts). Everything it writes lives in one temp folder: configs,
// rings, the object device, logs. /etc/swift is never written: each daemon is started through a
// small Python launcher that points Swift at the temp folder's swift.conf (set_swift_dir) before
// the server reads it, and every config sets swift_dir for the rings.
//
//   node harness/swift-s3.mjs              # starts it, prints S3_* variables, stops on Ctrl-C
//   import { startSwiftS3 } from './swift-s3.mjs'   # in tests; call stop() when done
//
// Packages (installed with apt-get when missing and running as root on Debian):
// swift-proxy swift-account swift-container swift-object memcached.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from './free-port.mjs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

const PYTHON = '/usr/bin/python3';
const DEBIAN_PACKAGES = ['swift-proxy', 'swift-account', 'swift-container', 'swift-object', 'memcached'];
// Each daemon imports for ~3 s; four of them on a loaded 2-core machine took 20 s when measured.
const START_TIMEOUT_MS = 90_000;
const REGION = 'us-east-1';

/** Swift cannot run here (not installed and not installable); the message says why. */
export class SwiftUnavailableError extends Error {
  constructor(message) {
    super(message);
    this.name = 'SwiftUnavailableError';
  }
}

const isInstalled = () =>
  spawnSync(PYTHON, ['-c', 'import swift.common.wsgi, swift.common.middleware.s3api'], { stdio: 'ignore' }).status === 0 &&
  spawnSync('memcached', ['-h'], { stdio: 'ignore' }).status === 0 &&
  spawnSync('swift-ring-builder', [], { stdio: 'ignore' }).error === undefined;

const ensureInstalled = () => {
  if (isInstalled()) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    throw new SwiftUnavailableError(
      `OpenStack Swift is not installed (needs root on Debian to install it: apt-get install ${DEBIAN_PACKAGES.join(' ')})`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const quiet = { stdio: ['ignore', 'ignore', 'inherit'], env };
  const installed =
    spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...DEBIAN_PACKAGES], quiet).status === 0 ||
    (spawnSync('apt-get', ['update', '-qq'], quiet).status === 0 &&
      spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...DEBIAN_PACKAGES], quiet).status === 0);
  if (!installed || !isInstalled()) throw new SwiftUnavailableError(`apt-get could not install ${DEBIAN_PACKAGES.join(' ')}`);
};

const ini = (sections) =>
  Object.entries(sections)
    .map(([name, values]) => `[${name}]\n${Object.entries(values).map(([key, value]) => `${key} = ${value}`).join('\n')}\n`)
    .join('\n');

// Runs a Swift WSGI server with swift.conf read from `swiftDir` instead of /etc/swift.
const LAUNCHER = `
import sys
from swift.common import utils
utils.set_swift_dir(sys.argv[1])
from swift.common.wsgi import run_wsgi
kind, conf = sys.argv[2], sys.argv[3]
options = {}
if kind == 'object':
    from swift.obj import server
    options['global_conf_callback'] = server.global_conf_callback
sys.exit(run_wsgi(conf, kind + '-server', **options))
`;

const storageServerConf = ({ kind, port, swiftDir, devices }) =>
  ini({
    DEFAULT: { devices, mount_check: 'false', bind_ip: '127.0.0.1', bind_port: port, workers: 0, swift_dir: swiftDir, log_level: 'WARNING' },
    'pipeline:main': { pipeline: `${kind}-server` },
    [`app:${kind}-server`]: { use: `egg:swift#${kind}` },
  });

const PROXY_FILTERS = ['catch_errors', 'gatekeeper', 'healthcheck', 'proxy-logging', 'cache', 'listing_formats', 'bulk', 's3api', 'tempauth', 'copy', 'slo', 'dlo'];

const proxyServerConf = ({ port, swiftDir, memcachedPort, secret }) =>
  ini({
    DEFAULT: { bind_ip: '127.0.0.1', bind_port: port, workers: 0, swift_dir: swiftDir, log_level: 'WARNING' },
    'pipeline:main': { pipeline: [...PROXY_FILTERS, 'proxy-logging', 'proxy-server'].join(' ') },
    'app:proxy-server': { use: 'egg:swift#proxy', account_autocreate: 'true' },
    ...Object.fromEntries(
      PROXY_FILTERS.map((name) => [`filter:${name}`, { use: `egg:swift#${name === 'cache' ? 'memcache' : name.replace('-', '_')}` }]),
    ),
    'filter:cache': { use: 'egg:swift#memcache', memcache_servers: `127.0.0.1:${memcachedPort}` },
    'filter:s3api': { use: 'egg:swift#s3api', location: REGION },
    'filter:tempauth': { use: 'egg:swift#tempauth', user_keyframe_app: `${secret} .admin` },
  });

const buildRings = (swiftDir, ports) => {
  for (const [kind, port] of Object.entries(ports)) {
    const builder = path.join(swiftDir, `${kind}.builder`);
    for (const args of [['create', '10', '1', '1'], ['add', `r1z1-127.0.0.1:${port}/d1`, '100'], ['rebalance']]) {
      const run = spawnSync('swift-ring-builder', [builder, ...args], { encoding: 'utf8' });
      // rebalance exits 1 with a warning on a one-device ring; the ring file is what matters.
      if (run.status !== 0 && !(args[0] === 'rebalance' && run.status === 1)) {
        throw new Error(`swift-ring-builder ${kind} ${args[0]} failed: ${run.stderr || run.stdout}`);
      }
    }
  }
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const waitUntil = async (what, check, deadline, children) => {
  let lastError;
  while (Date.now() < deadline) {
    const died = children.find((child) => child.exitCode !== null || child.signalCode !== null);
    if (died) throw new Error(`${died.label} exited (${died.exitCode ?? died.signalCode}) while waiting for ${what}`);
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${lastError.message}` : ''}`);
};

/**
 * Starts memcached and the four Swift daemons on free loopback ports, creates `bucket`, and
 * resolves with what an S3 client needs plus stop(). Throws SwiftUnavailableError when Swift is
 * not installed and cannot be.
 */
export const startSwiftS3 = async ({ bucket = 'keyframe-test' } = {}) => {
  ensureInstalled();
  const root = mkdtempSync(path.join(os.tmpdir(), 'keyframe-swift-'));
  const swiftDir = path.join(root, 'etc');
  const devices = path.join(root, 'node');
  mkdirSync(swiftDir);
  mkdirSync(path.join(devices, 'd1'), { recursive: true });
  const secret = randomBytes(12).toString('hex');
  const [proxyPort, accountPort, containerPort, objectPort, memcachedPort] = await Promise.all(Array.from({ length: 5 }, freePort));

  writeFileSync(
    path.join(swiftDir, 'swift.conf'),
    ini({
      'swift-hash': { swift_hash_path_suffix: randomBytes(8).toString('hex'), swift_hash_path_prefix: randomBytes(8).toString('hex') },
      'storage-policy:0': { name: 'Policy-0', default: 'yes' },
    }),
  );
  const ports = { account: accountPort, container: containerPort, object: objectPort };
  for (const [kind, port] of Object.entries(ports)) {
    writeFileSync(path.join(swiftDir, `${kind}-server.conf`), storageServerConf({ kind, port, swiftDir, devices }));
  }
  writeFileSync(path.join(swiftDir, 'proxy-server.conf'), proxyServerConf({ port: proxyPort, swiftDir, memcachedPort, secret }));
  buildRings(swiftDir, ports);

  const logFile = path.join(root, 'swift.log');
  const log = openSync(logFile, 'a');
  const children = [];
  const launch = (label, command, args) => {
    const child = spawn(command, args, { stdio: ['ignore', log, log], detached: false });
    child.label = label;
    children.push(child);
  };
  const stop = async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
          }),
      ),
    );
    rmSync(root, { recursive: true, force: true });
  };

  try {
    const runAs = typeof process.getuid === 'function' && process.getuid() === 0 ? ['-u', 'root'] : [];
    launch('memcached', 'memcached', ['-l', '127.0.0.1', '-p', String(memcachedPort), '-U', '0', '-m', '32', ...runAs]);
    for (const kind of ['account', 'container', 'object', 'proxy']) {
      launch(`swift-${kind}-server`, PYTHON, ['-c', LAUNCHER, swiftDir, kind, path.join(swiftDir, `${kind}-server.conf`)]);
    }
    const endpoint = `http://127.0.0.1:${proxyPort}`;
    const deadline = Date.now() + START_TIMEOUT_MS;
    await waitUntil('the Swift proxy', async () => (await fetch(`${endpoint}/healthcheck`)).ok, deadline, children);
    const credentials = { accessKeyId: 'keyframe:app', secretAccessKey: secret };
    const client = new S3Client({
      endpoint,
      region: REGION,
      forcePathStyle: true,
      credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    // The account and container servers may still be importing when the proxy answers.
    await waitUntil(`bucket ${bucket}`, async () => Boolean(await client.send(new CreateBucketCommand({ Bucket: bucket }))), deadline, children);
    client.destroy();
    return { endpoint, region: REGION, bucket, ...credentials, logFile, stop };
  } catch (error) {
    const tail = (() => {
      try {
        return readFileSync(logFile, 'utf8').slice(-2_000);
      } catch {
        return '';
      }
    })();
    await stop();
    throw new Error(`Swift did not start: ${error.message}${tail ? `\n--- swift log ---\n${tail}` : ''}`);
  }
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const swift = await startSwiftS3({ bucket: process.argv[2] || 'keyframe' });
  console.log(
    [
      `S3_ENDPOINT=${swift.endpoint}`,
      `S3_REGION=${swift.region}`,
      `S3_BUCKET=${swift.bucket}`,
      `S3_ACCESS_KEY_ID=${swift.accessKeyId}`,
      `S3_SECRET_ACCESS_KEY=${swift.secretAccessKey}`,
      'S3_FORCE_PATH_STYLE=true',
    ].join('\n'),
  );
  console.error(`Swift is running (log: ${swift.logFile}); Ctrl-C stops it.`);
  const shutdown = () => void swift.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
