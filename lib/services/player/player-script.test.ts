import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { loadPlayerScript, playerScriptCandidates } from './player-script';

const SCRIPT = path.join('node_modules', '@mux', 'mux-player', 'dist', 'mux-player.js');

describe('playerScriptCandidates', () => {
  test('the working directory first, then every folder above the entry file', () => {
    expect(playerScriptCandidates('/srv/other', '/opt/keyframe/.next/keyframe/server.mjs')).toEqual([
      path.join('/srv/other', SCRIPT),
      path.join('/opt/keyframe/.next/keyframe', SCRIPT),
      path.join('/opt/keyframe/.next', SCRIPT),
      path.join('/opt/keyframe', SCRIPT),
      path.join('/opt', SCRIPT),
      path.join('/', SCRIPT),
    ]);
  });

  test('a relative entry file is taken from the working directory; no entry, only the working directory', () => {
    expect(playerScriptCandidates('/opt/keyframe', '.next/keyframe/server.mjs').slice(0, 2)).toEqual([
      path.join('/opt/keyframe', SCRIPT),
      path.join('/opt/keyframe/.next/keyframe', SCRIPT),
    ]);
    expect(playerScriptCandidates('/opt/keyframe', undefined)).toEqual([path.join('/opt/keyframe', SCRIPT)]);
  });
});

describe('loadPlayerScript', () => {
  let elsewhere = '';
  afterEach(async () => {
    vi.restoreAllMocks();
    if (elsewhere) await rm(elsewhere, { recursive: true, force: true });
  });

  test('a server started from another folder finds the installed script above its entry file', async () => {
    const entry = path.resolve('.next/keyframe/server.mjs');
    elsewhere = await mkdtemp(path.join(os.tmpdir(), 'keyframe-player-cwd-'));
    vi.spyOn(process, 'cwd').mockReturnValue(elsewhere);
    const argv = process.argv;
    process.argv = [argv[0]!, entry];
    try {
      const script = await loadPlayerScript();
      expect(script.body.toString('utf8', 0, 4096)).toMatch(/mux-player|customElements/);
      expect(script.hash).toMatch(/^[\w-]{16}$/);
    } finally {
      process.argv = argv;
    }
  });
});
