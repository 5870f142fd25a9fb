import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { liveNodeIdOf } from './live-node-id';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const dataDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-node-id-'));
  dirs.push(dir);
  return dir;
};

test('two nodes on one host get different ids; a node keeps its id across restarts', () => {
  const [a, b] = [dataDir(), dataDir()];
  const idA = liveNodeIdOf(a);
  expect(idA.startsWith(`${os.hostname()}/`)).toBe(true);
  expect(liveNodeIdOf(b)).not.toBe(idA);
  expect(liveNodeIdOf(a)).toBe(idA);
  expect(readFileSync(path.join(a, 'live-node-id'), 'utf8').trim()).toBe(idA);
});
