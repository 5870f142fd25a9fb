import { abortableSleep, dataOf, type RecordedHttp } from './recorded-http';
import type { UploadRecord } from './workload-record';

// A direct upload the way a browser sends one with @mux/upchunk v3: create the upload, PUT the file
// in chunks with Content-Range, retry a chunk only on 408/502/503/504 or no answer (5 tries in all,
// 1 s apart), give up on any other status (a 500 included), then poll the upload until it names its
// asset, as stream.new does. What the server answers decides whether the user's file is lost.

export const UPCHUNK_RETRY_STATUSES = [408, 502, 503, 504];
export const UPCHUNK_ATTEMPTS = 5;
const UPCHUNK_DELAY_MS = 1_000;
const CHUNK_OK_STATUSES = [200, 201, 202, 204, 308];
const CHUNK_GRANULE_BYTES = 256 * 1024;
const ASSET_POLL_MS = 1_000;
const ASSET_WAIT_MS = 60_000;

export type UploadFile = { bytes: Buffer; sha256: string };

type UploadObject = { id?: string; url?: string; status?: string; asset_id?: string };

/** Bytes [0, B] the server says it holds after a 308 (`Range: bytes=0-B`); null when it does not say. */
const receivedThrough = (range: string | null): number | null => {
  const match = range ? /^bytes=0-(\d+)$/.exec(range.trim()) : null;
  return match?.[1] === undefined ? null : Number(match[1]);
};

/**
 * Runs one upload; the record is added to `uploads` as soon as the upload exists and updated in
 * place. `cutShort` ends it wherever it is (the workload's drain deadline).
 */
export const runDirectUpload = async ({
  http,
  file,
  chunkBytes,
  uploads,
  cutShort,
  log,
}: {
  http: RecordedHttp;
  file: UploadFile;
  chunkBytes: number;
  uploads: UploadRecord[];
  cutShort: AbortSignal;
  log: (line: string) => void;
}): Promise<void> => {
  if (chunkBytes % CHUNK_GRANULE_BYTES !== 0) throw new RangeError(`chunk size ${chunkBytes} is not a multiple of 256 KiB`);
  const created = await http.api('upload-create', 'POST', '/video/v1/uploads', {
    cors_origin: '*',
    new_asset_settings: { playback_policy: ['public'] },
  });
  const upload = dataOf<UploadObject>(created);
  if (created.status !== 201 || !upload?.id || !upload.url) return;
  const record: UploadRecord = {
    uploadId: upload.id,
    startedAt: Date.now(),
    finishedAt: null,
    outcome: 'in-progress',
    sha256: file.sha256,
    bytes: file.bytes.length,
    lastStatus: 0,
    assetId: null,
  };
  uploads.push(record);
  const finish = (outcome: UploadRecord['outcome'], failure?: string) => {
    record.outcome = outcome;
    record.finishedAt = Date.now();
    if (failure) {
      record.failure = failure;
      log(`upload ${record.uploadId} ${outcome}: ${failure}`);
    }
  };

  const total = file.bytes.length;
  const uploadUrl = upload.url;
  const recordedPath = new URL(uploadUrl).pathname;
  for (let start = 0; start < total; ) {
    const end = Math.min(start + chunkBytes, total);
    let sent = false;
    for (let attempt = 1; attempt <= UPCHUNK_ATTEMPTS && !sent; attempt++) {
      if (cutShort.aborted) return finish('cut-short');
      const answer = await http.call({
        kind: 'upload-chunk',
        method: 'PUT',
        url: uploadUrl,
        recordedPath,
        headers: { 'content-type': 'video/mp4', 'content-range': `bytes ${start}-${end - 1}/${total}` },
        body: file.bytes.subarray(start, end),
        note: `bytes ${start}-${end - 1}/${total}, attempt ${attempt}/${UPCHUNK_ATTEMPTS}`,
      });
      record.lastStatus = answer.status;
      if (cutShort.aborted) return finish('cut-short');
      if (CHUNK_OK_STATUSES.includes(answer.status)) {
        // UpChunk sends the same chunk again when a 308's Range says the server kept less of it.
        const through = answer.status === 308 ? receivedThrough(answer.headers?.get('range') ?? null) : null;
        if (through === null || through >= end - 1) sent = true;
      } else if (answer.status !== 0 && !UPCHUNK_RETRY_STATUSES.includes(answer.status)) {
        return finish('failed', `Server responded with ${answer.status}. Stopping upload. (bytes ${start}-${end - 1})`);
      }
      if (!sent && attempt < UPCHUNK_ATTEMPTS) await abortableSleep(UPCHUNK_DELAY_MS, cutShort);
    }
    if (!sent) return finish('failed', `chunk bytes ${start}-${end - 1} failed ${UPCHUNK_ATTEMPTS} times (last status ${record.lastStatus})`);
    start = end;
  }
  // UpChunk would call any accepted status a success; only a 200/201 says the server has the file.
  if (record.lastStatus !== 200 && record.lastStatus !== 201) {
    return finish('failed', `the last chunk was answered ${record.lastStatus}, not 200/201 (UpChunk would report success)`);
  }
  finish('succeeded');

  const deadline = Date.now() + ASSET_WAIT_MS;
  while (record.assetId === null && Date.now() < deadline && !cutShort.aborted) {
    const answer = await http.api('upload-get', 'GET', `/video/v1/uploads/${record.uploadId}`);
    const assetId = dataOf<UploadObject>(answer)?.asset_id;
    if (answer.status === 200 && assetId) record.assetId = assetId;
    else await abortableSleep(Math.max(ASSET_POLL_MS, (Number(answer.headers?.get('retry-after')) || 0) * 1000), cutShort);
  }
};
