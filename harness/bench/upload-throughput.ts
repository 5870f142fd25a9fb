import { createReadStream, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { SqliteAssetDb, type AssetDb } from './asset-db';
import { basicAuth, HttpStatusError, keepAliveAgent, request } from '../http';
import type { KeyframeProcess } from '../keyframe-process';
import { startBenchServer, type AccessToken } from './bench-server';
import { descendantPids, ownDirectory, releaseDirectory, runCommand } from '../processes';
import { median, round, sleep } from '../stats';

// Direct-upload throughput and the server's memory while it receives large files. A ≥ 1 GiB valid
// media file (raw 1080p video in Matroska, which ffmpeg writes at disk speed) is generated at bench
// time and uploaded to a fresh server, interleaved, (a) as one streamed PUT (curl -T, next-video)
// and (b) as sequential 32 MiB Content-Range PUTs (UpChunk's way, with a larger chunk). The
// server's resident memory is read from /proc: VmHWM (the kernel's peak) and VmRSS sampled every
// 50 ms during each upload. A small (31 MB) upload after an uncounted warm-up gives the memory the
// server needs anyway, so the report shows whether memory grows with the file size (it must not:
// bytes go to disk as they arrive). RssAnon (heap and buffers, without the mapped node binary and libraries) is reported
// next to RSS because it is the part that would grow if the server buffered a file.

export const UPLOAD_CHUNK_BYTES = 32 * 1024 * 1024;
const RSS_SAMPLE_MS = 50;
const MB = 1e6;

export type UploadMethod = 'single PUT' | '32 MiB chunks';

export type MediaFile = { path: string; bytes: number; seconds: number; generateMs: number; ffmpegArgs: string[] };

export type UploadSample = {
  method: UploadMethod;
  /** `warm-up`: the first upload to a fresh server (loads the upload routes), not counted. */
  file: 'warm-up' | 'small' | 'large';
  run: number;
  bytes: number;
  requests: number;
  /** First byte sent → last response received. */
  wallMs: number;
  megabytesPerSecond: number;
  /** Highest VmRSS of the server process sampled during the upload. */
  peakSampledRssMB: number | null;
  /** Highest RssAnon (heap, buffers: the part that would grow if the file were buffered) sampled during the upload. */
  peakSampledAnonMB: number | null;
  /** The server process's VmHWM (lifetime peak) right after the upload. */
  vmHwmAfterMB: number | null;
  uploadId: string;
  assetId: string | null;
  assetStatus: string;
  /** asset readyAt − createdAt (server-side), when it became ready. */
  assetReadyMs: number | null;
};

export type UploadThroughputResult = {
  largeFile: Omit<MediaFile, 'path'>;
  smallFile: Omit<MediaFile, 'path'>;
  chunkBytes: number;
  runs: number;
  server: { pid: number | null; identifiedBy: string; command: string };
  memoryAtStartMB: { rss: number | null; anon: number | null; hwm: number | null };
  samples: UploadSample[];
  medians: Record<UploadMethod, { megabytesPerSecond: number | null; wallMs: number | null; runs: number }>;
  /** Peak sampled RSS during the small upload vs the largest during any 1 GiB upload (and the same for RssAnon). */
  rssFlatness: {
    smallUploadPeakMB: number | null;
    largeUploadPeakMB: number | null;
    growthMB: number | null;
    smallUploadPeakAnonMB: number | null;
    largeUploadPeakAnonMB: number | null;
  };
  /** VmHWM of the server process at the end: its peak over the whole section. */
  peakRssMB: number | null;
};

const recipe = (seconds: number, output: string): string[] => [
  '-hide_banner', '-nostdin', '-v', 'error', '-y',
  '-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=25',
  '-t', String(seconds),
  '-c:v', 'rawvideo', '-pix_fmt', 'yuv420p',
  '-f', 'matroska', output,
];

const generateMedia = async (ffmpeg: string, dir: string, name: string, seconds: number): Promise<MediaFile> => {
  const target = path.join(dir, name);
  const args = recipe(seconds, target);
  const result = await runCommand(ffmpeg, args, { timeoutMs: 10 * 60_000 });
  if (result.code !== 0) throw new Error(`ffmpeg could not generate ${name}: ${result.stderr.trim().slice(-800)}`);
  return { path: target, bytes: statSync(target).size, seconds, generateMs: round(result.wallMs, 0), ffmpegArgs: args };
};

// --- the server's memory ---

/** A `kB` field of /proc/<pid>/status (VmRSS, VmHWM), in MB; null once the process is gone. */
export const statusMB = (pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon'): number | null => {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? round((Number(match[1]) * 1024) / MB, 1) : null;
  } catch {
    return null;
  }
};

const listeningSocketInodes = (port: number): Set<string> => {
  const inodes = new Set<string>();
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[] = [];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN; field 9 is the socket inode.
      if (fields[1]?.endsWith(`:${portHex}`) && fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
};

const holdsSocket = (pid: number, inodes: Set<string>): boolean => {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return target.startsWith('socket:[') && inodes.has(target.slice(8, -1));
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
};

export const commandLine = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 300);
  } catch {
    return '';
  }
};

/**
 * The Node process that actually serves HTTP. The spawned pid may be a wrapper (`tsx
 * lib/server/main.ts` runs the server in a child node process), so the server is the process in
 * the tree that holds the listening socket (the largest node process if /proc does not tell).
 */
export const findServerProcess = (rootPid: number, port: number): { pid: number; identifiedBy: string } => {
  const tree = [rootPid, ...descendantPids(rootPid)];
  const inodes = listeningSocketInodes(port);
  const listener = tree.find((pid) => holdsSocket(pid, inodes));
  if (listener !== undefined) return { pid: listener, identifiedBy: `holds the socket listening on port ${port}` };
  const nodes = tree.filter((pid) => /(^|\/)node(\s|$)/.test(commandLine(pid)));
  const largest = nodes.sort((a, b) => (statusMB(b, 'VmRSS') ?? 0) - (statusMB(a, 'VmRSS') ?? 0))[0];
  if (largest === undefined) throw new Error(`no node process found under pid ${rootPid}`);
  return { pid: largest, identifiedBy: 'largest node process in the server tree (listening socket not found)' };
};

type RssPeaks = { rss: number | null; anon: number | null };

/** Samples VmRSS and RssAnon every 50 ms until stopped; returns the highest values seen. */
const sampleRss = (pid: number): { stop: () => RssPeaks } => {
  const peaks: RssPeaks = { rss: null, anon: null };
  const take = () => {
    for (const [key, field] of [['rss', 'VmRSS'], ['anon', 'RssAnon']] as const) {
      const value = statusMB(pid, field);
      const peak = peaks[key];
      if (value !== null && (peak === null || value > peak)) peaks[key] = value;
    }
  };
  take();
  const timer = setInterval(take, RSS_SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return peaks;
    },
  };
};

const maxOf = (values: Array<number | null>): number | null => {
  const known = values.filter((value): value is number => value !== null);
  return known.length > 0 ? Math.max(...known) : null;
};

// --- the API and the upload url ---

type RawResponse = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** Sends `body` (a stream or a buffer) to `url`; resolves with the response once it has ended. */
const send = (
  url: string,
  { headers, body, agent }: { headers: Record<string, string>; body: NodeJS.ReadableStream | Buffer; agent?: http.Agent },
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method: 'PUT', headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      response.once('error', reject);
    });
    outgoing.setTimeout(10 * 60_000, () => outgoing.destroy(new Error(`PUT ${url} timed out`)));
    outgoing.once('error', reject);
    if (Buffer.isBuffer(body)) outgoing.end(body);
    else body.pipe(outgoing);
  });

type UploadObject = { id: string; url?: string; status: string; asset_id?: string; error?: unknown };

const api = async (server: KeyframeProcess, token: AccessToken, method: string, pathname: string, body?: unknown): Promise<UploadObject> => {
  const url = `${server.baseUrl}${pathname}`;
  const response = await request({
    url,
    method,
    headers: { authorization: basicAuth(token.id, token.secret), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = response.body.toString('utf8');
  if (response.status !== 200 && response.status !== 201) throw new HttpStatusError(response.status, url, text);
  return (JSON.parse(text) as { data: UploadObject }).data;
};

const putWholeFile = async (url: string, file: MediaFile): Promise<number> => {
  const response = await send(url, {
    headers: { 'content-type': 'video/x-matroska', 'content-length': String(file.bytes) },
    body: createReadStream(file.path, { highWaterMark: 1024 * 1024 }),
  });
  if (response.status !== 200 && response.status !== 201) throw new Error(`single PUT answered ${response.status}: ${response.body.slice(0, 300)}`);
  return 1;
};

/** UpChunk's protocol from Node: read a slice, PUT it with Content-Range, next slice after the answer. */
const putInChunks = async (url: string, file: MediaFile): Promise<number> => {
  const agent = keepAliveAgent(1);
  const handle = await open(file.path, 'r');
  const buffer = Buffer.allocUnsafe(UPLOAD_CHUNK_BYTES);
  let requests = 0;
  try {
    for (let start = 0; start < file.bytes; start += UPLOAD_CHUNK_BYTES) {
      const length = Math.min(UPLOAD_CHUNK_BYTES, file.bytes - start);
      const { bytesRead } = await handle.read(buffer, 0, length, start);
      if (bytesRead !== length) throw new Error(`short read at ${start}: ${bytesRead} of ${length} bytes`);
      const end = start + length - 1;
      const response = await send(url, {
        headers: { 'content-type': 'video/x-matroska', 'content-range': `bytes ${start}-${end}/${file.bytes}`, 'content-length': String(length) },
        body: buffer.subarray(0, length),
        agent,
      });
      requests++;
      const last = end + 1 === file.bytes;
      const expected = last ? [200, 201] : [308];
      if (!expected.includes(response.status)) {
        throw new Error(`chunk bytes ${start}-${end}/${file.bytes} answered ${response.status} (expected ${expected.join('/')}): ${response.body.slice(0, 300)}`);
      }
      if (!last && response.headers.range !== `bytes=0-${end}`) {
        throw new Error(`chunk bytes ${start}-${end} answered 308 with Range ${String(response.headers.range)} (expected bytes=0-${end})`);
      }
    }
  } finally {
    await handle.close();
    agent.destroy();
  }
  return requests;
};

/** Waits for the upload's asset and then for the asset to leave `preparing` (read from the database). */
const settleAsset = async (
  server: KeyframeProcess,
  token: AccessToken,
  db: AssetDb,
  uploadId: string,
): Promise<{ assetId: string | null; assetStatus: string; assetReadyMs: number | null }> => {
  const deadline = performance.now() + 5 * 60_000;
  let upload = await api(server, token, 'GET', `/video/v1/uploads/${uploadId}`);
  while (upload.status === 'waiting' && performance.now() < deadline) {
    await sleep(100);
    upload = await api(server, token, 'GET', `/video/v1/uploads/${uploadId}`);
  }
  if (!upload.asset_id) return { assetId: null, assetStatus: `upload ${upload.status} ${JSON.stringify(upload.error ?? '')}`, assetReadyMs: null };
  for (;;) {
    const row = await db.row(upload.asset_id);
    if (row && row.status !== 'preparing') {
      return {
        assetId: upload.asset_id,
        assetStatus: row.status === 'errored' ? `errored: ${row.errorType ?? ''} ${row.errorMessagesJson ?? ''}` : row.status,
        assetReadyMs: row.readyAt === null ? null : row.readyAt - row.createdAt,
      };
    }
    if (performance.now() > deadline) return { assetId: upload.asset_id, assetStatus: `still ${row?.status ?? 'missing'}`, assetReadyMs: null };
    await sleep(50);
  }
};

export const measureUploadThroughput = async ({
  server,
  token,
  db,
  ffmpeg,
  runs,
  log,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  db: AssetDb;
  ffmpeg: string;
  runs: number;
  log: (line: string) => void;
}): Promise<UploadThroughputResult> => {
  const rootPid = server.pid;
  if (rootPid === undefined) throw new Error('the server has no pid');
  const serverProcess = findServerProcess(rootPid, Number(new URL(server.baseUrl).port));
  const pid = serverProcess.pid;
  const memoryAtStartMB = { rss: statusMB(pid, 'VmRSS'), anon: statusMB(pid, 'RssAnon'), hwm: statusMB(pid, 'VmHWM') };
  log(
    `upload throughput: server process ${pid} (${serverProcess.identifiedBy}); RSS ${memoryAtStartMB.rss} MB ` +
      `(anonymous ${memoryAtStartMB.anon} MB) at start`,
  );

  const dir = ownDirectory(mkdtempSync(path.join(os.tmpdir(), 'keyframe-bench-upload-')));
  try {
    // 14 s of raw 1080p25 yuv420p = 350 × 3,110,400 bytes ≈ 1.09 GB (> 1 GiB); 0.4 s ≈ 31 MB.
    const large = await generateMedia(ffmpeg, dir, 'large-1080p-rawvideo.mkv', 14);
    const small = await generateMedia(ffmpeg, dir, 'small-1080p-rawvideo.mkv', 0.4);
    log(`upload throughput: generated ${round(large.bytes / MB, 0)} MB in ${large.generateMs} ms and ${round(small.bytes / MB, 1)} MB`);

    const samples: UploadSample[] = [];
    const uploadOnce = async (method: UploadMethod, file: MediaFile, label: UploadSample['file'], run: number) => {
      const upload = await api(server, token, 'POST', '/video/v1/uploads', { new_asset_settings: { playback_policies: ['public'] } });
      if (!upload.url) throw new Error(`the new upload has no url: ${JSON.stringify(upload)}`);
      const rss = sampleRss(pid);
      const startedAt = performance.now();
      let requests: number;
      let peaks: RssPeaks = { rss: null, anon: null };
      try {
        requests = method === 'single PUT' ? await putWholeFile(upload.url, file) : await putInChunks(upload.url, file);
      } finally {
        peaks = rss.stop();
      }
      const wallMs = performance.now() - startedAt;
      const settled = await settleAsset(server, token, db, upload.id);
      const sample: UploadSample = {
        method,
        file: label,
        run,
        bytes: file.bytes,
        requests,
        wallMs: round(wallMs, 0),
        megabytesPerSecond: round(file.bytes / MB / (wallMs / 1000), 1),
        peakSampledRssMB: peaks.rss,
        peakSampledAnonMB: peaks.anon,
        vmHwmAfterMB: statusMB(pid, 'VmHWM'),
        uploadId: upload.id,
        ...settled,
      };
      samples.push(sample);
      log(
        `upload ${label} ${method} run ${run}: ${round(file.bytes / MB, 0)} MB in ${sample.wallMs} ms = ${sample.megabytesPerSecond} MB/s ` +
          `(${requests} request(s)); server RSS peak ${peaks.rss} MB (anonymous ${peaks.anon} MB), VmHWM ${sample.vmHwmAfterMB} MB; asset ${sample.assetStatus}`,
      );
      // The next upload should not share the disk or CPU with this asset's files or post-ready work.
      if (settled.assetId) await api(server, token, 'DELETE', `/video/v1/assets/${settled.assetId}`).catch(() => undefined);
      return sample;
    };

    // The first upload loads the upload routes' modules: memory a server needs once, not per file.
    await uploadOnce('single PUT', small, 'warm-up', 0);
    const smallSample = await uploadOnce('single PUT', small, 'small', 1);
    for (let run = 1; run <= runs; run++) {
      await uploadOnce('single PUT', large, 'large', run);
      await uploadOnce('32 MiB chunks', large, 'large', run);
    }

    const largeSamples = samples.filter((sample) => sample.file === 'large');
    const medians = Object.fromEntries(
      (['single PUT', '32 MiB chunks'] as const).map((method) => {
        const mine = largeSamples.filter((sample) => sample.method === method);
        return [
          method,
          {
            megabytesPerSecond: median(mine.map((sample) => sample.megabytesPerSecond)),
            wallMs: median(mine.map((sample) => sample.wallMs)),
            runs: mine.length,
          },
        ];
      }),
    ) as UploadThroughputResult['medians'];
    const largeUploadPeakMB = maxOf(largeSamples.map((sample) => sample.peakSampledRssMB));
    const smallUploadPeakMB = smallSample.peakSampledRssMB;
    const { path: _largePath, ...largeFile } = large;
    const { path: _smallPath, ...smallFile } = small;
    return {
      largeFile,
      smallFile,
      chunkBytes: UPLOAD_CHUNK_BYTES,
      runs,
      server: { pid, identifiedBy: serverProcess.identifiedBy, command: commandLine(pid) },
      memoryAtStartMB,
      samples,
      medians,
      rssFlatness: {
        smallUploadPeakMB,
        largeUploadPeakMB,
        growthMB: smallUploadPeakMB === null || largeUploadPeakMB === null ? null : round(largeUploadPeakMB - smallUploadPeakMB, 1),
        smallUploadPeakAnonMB: smallSample.peakSampledAnonMB,
        largeUploadPeakAnonMB: maxOf(largeSamples.map((sample) => sample.peakSampledAnonMB)),
      },
      peakRssMB: statusMB(pid, 'VmHWM'),
    };
  } finally {
    releaseDirectory(dir);
  }
};

/**
 * Runs the section on a server of its own, started for it and stopped afterwards: VmHWM is a
 * lifetime peak, so a server that already served other phases would report their memory.
 */
export const measureUploadThroughputOnFreshServer = async ({
  env,
  ffmpeg,
  runs,
  log,
}: {
  env: Record<string, string>;
  ffmpeg: string;
  runs: number;
  log: (line: string) => void;
}): Promise<{ result: UploadThroughputResult; serverLogTail: string[] }> => {
  log('upload throughput: starting a fresh Keyframe server…');
  const server = await startBenchServer({ env });
  let db: AssetDb | undefined;
  try {
    const token = await server.createToken();
    db = new SqliteAssetDb(server.dataDir);
    const result = await measureUploadThroughput({ server, token, db, ffmpeg, runs, log });
    return { result, serverLogTail: server.logs().split('\n').filter(Boolean).slice(-20) };
  } finally {
    await db?.close();
    await server.dispose();
  }
};
