import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Which node holds a broadcast (live_streams.ingest_node_id): the node that finds its own id there
// after a restart ends the broadcast and finalizes the recording from its disk. The host name alone
// is not enough — several nodes may share a host (containers with the host's name, a test cluster)
// and would end each other's broadcasts — so each DATA_DIR gets an id of its own at its first
// start, kept across restarts (the recording's media is in that DATA_DIR too).

export const LIVE_NODE_ID_FILE = 'live-node-id';

export const liveNodeIdOf = (dataDir: string): string => {
  const file = path.join(dataDir, LIVE_NODE_ID_FILE);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const id = `${os.hostname()}/${randomBytes(6).toString('hex')}`;
  try {
    writeFileSync(file, `${id}\n`, { flag: 'wx' });
    return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(file, 'utf8').trim();
  }
};
