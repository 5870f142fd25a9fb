// Makes sure the Debian packages Keyframe needs are present: `ffmpeg` (ffmpeg + ffprobe) to run,
// `chromium` for the browser tests and `nginx` (Debian's `nginx-light`) for the test that puts a
// caching reverse proxy in front of Keyframe. Installs them with apt when running as root on
// Debian; otherwise explains how to install them.
import { spawnSync } from 'node:child_process';

// name → the binaries that must run, and the Debian package that provides them.
const PACKAGES = {
  ffmpeg: { binaries: ['ffmpeg', 'ffprobe'], versionFlag: '-version', debian: 'ffmpeg' },
  chromium: { binaries: ['/usr/bin/chromium'], versionFlag: '--version', debian: 'chromium' },
  nginx: { binaries: ['/usr/sbin/nginx'], versionFlag: '-v', debian: 'nginx-light' },
};

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in PACKAGES));
if (unknown.length > 0) {
  console.error(`[keyframe] unknown package(s): ${unknown.join(', ')}`);
  process.exit(2);
}

const works = (binary, flag) => spawnSync(binary, [flag], { stdio: 'ignore' }).status === 0;
const missing = requested.filter((name) => !PACKAGES[name].binaries.every((binary) => works(binary, PACKAGES[name].versionFlag)));
if (missing.length === 0) process.exit(0);
const debianPackages = missing.map((name) => PACKAGES[name].debian);
const brew = missing.filter((name) => name !== 'chromium');

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
if (!isRoot || !hasApt) {
  console.error(
    `[keyframe] missing system package(s): ${missing.join(', ')}.\n` +
      `Install them, e.g. on Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y ${debianPackages.join(' ')}\n` +
      `${brew.length > 0 ? `(on macOS: brew install ${brew.join(' ')}), ` : ''}then run the command again.`,
  );
  process.exit(1);
}

console.log(`[keyframe] installing ${debianPackages.join(', ')} with apt-get …`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
const install =
  update.status === 0 && spawnSync('apt-get', ['install', '-y', '-qq', ...debianPackages], { stdio: 'inherit', env });
if (!install || install.status !== 0) {
  console.error(`[keyframe] apt-get could not install ${debianPackages.join(', ')}`);
  process.exit(1);
}
