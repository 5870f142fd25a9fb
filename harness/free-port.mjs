// Ports for servers a harness starts as child processes (e2e, bench, the test object store).
//
// A port found with listen(0) and released again lies in the kernel's ephemeral range
// (ip_local_port_range, 32768–60999 on Linux), where any outgoing connection may take it before
// the child binds it — with a cluster's nodes talking to PostgreSQL, Redis and S3 that happened in
// CI (EADDRINUSE on a node's port). Ports below that range are never handed out implicitly, so
// the only contenders are other harness processes; each takes its own block.
import net from 'node:net';

const FIRST_PORT = 20_000;
const BLOCK_SIZE = 1_000;
const BLOCKS = 12;

/** The block of ports this process picks from: Playwright's worker slot, else its pid. */
export const portBlockStart = (slot = process.env.TEST_PARALLEL_INDEX, pid = process.pid) => {
  const index = slot !== undefined && /^\d+$/.test(slot) ? Number(slot) : pid;
  return FIRST_PORT + (index % BLOCKS) * BLOCK_SIZE;
};

const isFree = (port) =>
  new Promise((resolve) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

// Walks the block from a random start so a worker that replaced a crashed one (same slot) does not
// retry the ports its predecessor's children may still hold; never hands out one port twice in a row.
let cursor = Math.floor(Math.random() * BLOCK_SIZE);

export const freePort = async () => {
  const blockStart = portBlockStart();
  for (let tried = 0; tried < BLOCK_SIZE; tried += 1) {
    const port = blockStart + (cursor % BLOCK_SIZE);
    cursor += 1;
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port in ${blockStart}–${blockStart + BLOCK_SIZE - 1}`);
};
