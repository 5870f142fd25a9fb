import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

// mux-player's self-contained browser build, served by Keyframe itself (no third-party CDN). It is
// read from the node_modules Keyframe was installed with, once, and addressed by its content hash
// so it can be cached for good: an upgrade of @mux/mux-player changes the URL.

export const PLAYER_SCRIPT_PATH = '/player/mux-player.js';

const SCRIPT_FILE = path.join('node_modules', '@mux', 'mux-player', 'dist', 'mux-player.js');

/**
 * Where the script may be: under the working directory (the repository root, as `npm start` runs
 * it), then under every folder above the server's entry file (`.next/keyframe/server.mjs` inside
 * the repository), so a server started from elsewhere finds it too. A bundler's idea of
 * require.resolve is not used: the server is bundled, node_modules is not.
 */
export const playerScriptCandidates = (cwd: string, entryFile: string | undefined): string[] => {
  const candidates = [path.resolve(cwd, SCRIPT_FILE)];
  if (entryFile) {
    for (let folder = path.dirname(path.resolve(cwd, entryFile)); ; folder = path.dirname(folder)) {
      candidates.push(path.join(folder, SCRIPT_FILE));
      if (path.dirname(folder) === folder) break;
    }
  }
  return [...new Set(candidates)];
};

export type PlayerScript = { body: Buffer; hash: string };

const readFirst = async (files: string[]): Promise<Buffer> => {
  for (const file of files) {
    try {
      return await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error(`@mux/mux-player's browser build is not installed: looked for ${files.join(', ')}`);
};

let loaded: Promise<PlayerScript> | null = null;

export const loadPlayerScript = (): Promise<PlayerScript> => {
  loaded ??= readFirst(playerScriptCandidates(process.cwd(), process.argv[1])).then((body) => ({
    body,
    hash: createHash('sha256').update(body).digest('base64url').slice(0, 16),
  }));
  loaded.catch(() => {
    loaded = null;
  });
  return loaded;
};

export const playerScriptUrl = async (): Promise<string> => `${PLAYER_SCRIPT_PATH}?v=${(await loadPlayerScript()).hash}`;
