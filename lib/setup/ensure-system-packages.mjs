// Makes sure the Debian packages Keyframe needs are present: `ffmpeg` (ffmpeg + ffprobe) to run,
// `captions` (PocketSphinx and its US English model) for auto-generated captions, `chromium` for
// the browser tests, `nginx` (Debian's `nginx-light`) for the test that puts a caching reverse
// proxy in front of Keyframe and `speech-synthesis` (festival with an HTS voice, espeak-ng) for the
// tests that make speech to caption. Installs them with apt when running as root on Debian;
// otherwise explains how to install them.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

// name → the binaries that must run (with `versionFlag`, exiting 0; with none, starting at all),
// the files that must exist, and the Debian packages that provide them.
const PACKAGES = {
  ffmpeg: { binaries: ['ffmpeg', 'ffprobe'], versionFlag: '-version', debian: ['ffmpeg'], brew: 'ffmpeg' },
  // pocketsphinx_continuous has no version flag: run bare, it prints its usage and exits 1.
  captions: {
    binaries: ['pocketsphinx_continuous'],
    versionFlag: null,
    files: ['/usr/share/pocketsphinx/model/en-us/en-us/mdef', '/usr/share/pocketsphinx/model/en-us/en-us.lm.bin', '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict'],
    debian: ['pocketsphinx', 'pocketsphinx-en-us'],
  },
  chromium: { binaries: ['/usr/bin/chromium'], versionFlag: '--version', debian: ['chromium'] },
  nginx: { binaries: ['/usr/sbin/nginx'], versionFlag: '-v', debian: ['nginx-light'], brew: 'nginx' },
  'speech-synthesis': {
    binaries: ['text2wave', 'espeak-ng'],
    versionFlag: '--help',
    files: ['/usr/share/festival/voices/us/cmu_us_slt_arctic_hts/festvox'],
    debian: ['festival', 'festvox-us-slt-hts', 'espeak-ng'],
  },
};

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in PACKAGES));
if (unknown.length > 0) {
  console.error(`[keyframe] unknown package(s): ${unknown.join(', ')}`);
  process.exit(2);
}

const works = (binary, flag) => {
  const run = spawnSync(binary, flag === null ? [] : [flag], { stdio: 'ignore' });
  return flag === null ? run.error === undefined : run.status === 0;
};
const present = ({ binaries, versionFlag, files = [] }) => binaries.every((binary) => works(binary, versionFlag)) && files.every((file) => existsSync(file));
const missing = requested.filter((name) => !present(PACKAGES[name]));
if (missing.length === 0) process.exit(0);
const debianPackages = missing.flatMap((name) => PACKAGES[name].debian);
const brew = missing.flatMap((name) => PACKAGES[name].brew ?? []);

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
