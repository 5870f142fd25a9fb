import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from '../processes';
import { errorMessage } from '../stats';

// The peers the delivery comparison needs (nginx, wrk) are system programs, not npm packages.
// Like lib/setup/ensure-system-packages.mjs, a missing one is installed with apt when the
// benchmark runs as root on Debian/Ubuntu; otherwise the peer is skipped and the report says why.

export type SystemTool =
  | { name: string; available: true; path: string; version: string; installedByBench: string | null }
  | { name: string; available: false; reason: string };

// nginx lives in /usr/sbin, which is not on a normal user's PATH.
const SEARCH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

const findBinary = (binary: string): string | null => {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), ...SEARCH_DIRS];
  for (const dir of dirs) {
    const candidate = path.join(dir, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
};

const versionOf = async (binary: string, args: string[]): Promise<string> => {
  const result = await runCommand(binary, args, { timeoutMs: 10_000 }).catch(() => null);
  // nginx -v writes to stderr; wrk -v prints its version and exits 1.
  const line = `${result?.stdout ?? ''}\n${result?.stderr ?? ''}`.split('\n').map((entry) => entry.trim()).find(Boolean) ?? 'unknown';
  return line.replace(/^nginx version:\s*/, '').slice(0, 200);
};

const aptInstall = async (packages: string[], log: (line: string) => void): Promise<{ ok: boolean; output: string }> => {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => runCommand('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { env, timeoutMs: 10 * 60_000 });
  let result = await install();
  if (result.code !== 0) {
    log(`apt-get install ${packages.join(' ')} failed; running apt-get update and trying again…`);
    await runCommand('apt-get', ['update', '-qq'], { env, timeoutMs: 10 * 60_000 });
    result = await install();
  }
  return { ok: result.code === 0, output: `${result.stdout}\n${result.stderr}`.trim().slice(-600) };
};

/**
 * Finds `binary`; when it is missing and this is root on a Debian-like system, installs the first
 * of `aptPackages` apt can install (alternatives: Debian 12 has `nginx-light`, later releases only `nginx`).
 */
export const ensureSystemTool = async ({
  binary,
  versionArgs,
  aptPackages,
  log,
}: {
  binary: string;
  versionArgs: string[];
  aptPackages: string[];
  log: (line: string) => void;
}): Promise<SystemTool> => {
  const found = findBinary(binary);
  if (found) return { name: binary, available: true, path: found, version: await versionOf(found, versionArgs), installedByBench: null };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const debian = existsSync('/etc/debian_version') && findBinary('apt-get') !== null;
  if (!isRoot || !debian) {
    return {
      name: binary,
      available: false,
      reason:
        `${binary} is not installed and the benchmark ${!debian ? 'is not on a Debian-like system with apt-get' : 'is not running as root'}, ` +
        `so it cannot install it (Debian/Ubuntu: sudo apt-get install -y ${aptPackages[0] ?? binary})`,
    };
  }
  const failures: string[] = [];
  for (const name of aptPackages) {
    log(`${binary} is missing; installing the Debian package ${name} with apt-get…`);
    try {
      const result = await aptInstall([name], log);
      const installed = findBinary(binary);
      if (result.ok && installed) {
        return { name: binary, available: true, path: installed, version: await versionOf(installed, versionArgs), installedByBench: name };
      }
      failures.push(`${name}: ${result.output.split('\n').at(-1) ?? 'failed'}`);
    } catch (error) {
      failures.push(`${name}: ${errorMessage(error)}`);
    }
  }
  return { name: binary, available: false, reason: `apt-get could not install ${binary} (${failures.join('; ')})` };
};

/** A file a Debian package provides (an nginx module, say): installed like a missing binary, or the reason it is not there. */
export const ensureSystemFile = async ({ file, aptPackage, log }: { file: string; aptPackage: string; log: (line: string) => void }): Promise<{ available: true } | { available: false; reason: string }> => {
  if (existsSync(file)) return { available: true };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/etc/debian_version') || findBinary('apt-get') === null) {
    return { available: false, reason: `${file} is missing and the benchmark cannot install it (Debian/Ubuntu: sudo apt-get install -y ${aptPackage})` };
  }
  log(`${file} is missing; installing the Debian package ${aptPackage} with apt-get…`);
  const result = await aptInstall([aptPackage], log).catch((error: unknown) => ({ ok: false, output: errorMessage(error) }));
  return result.ok && existsSync(file) ? { available: true } : { available: false, reason: `apt-get could not install ${aptPackage} (${result.output.split('\n').at(-1) ?? 'failed'})` };
};
