import { mkdir, open, truncate } from 'node:fs/promises';
import path from 'node:path';
import { checkUploadUrlToken } from '../../auth/upload-url-token';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { ApiError } from '../../errors/api-error';
import { receivedRangeHeader, type UploadContentRange } from './upload-range';
import { receivedByteCount, uploadDataPath } from '../../storage/upload-files';
import { completeUpload } from './complete-upload';
import { shareUploadedFile } from './share-uploaded-file';
import { expireUploadIfDue } from './expire-uploads';
import { catchUpFromSharedParts, dropLocalUploadCopy, dropSharedPartsInBackground, dropUploadBytes, shareAppendedPart } from './shared-upload-parts';
import { uploadLock } from './upload-lock';
import { findUploadOrThrow, recordUploadEvent, uploadUrlKey, type StoredUpload } from './upload-record';

// The data plane of direct uploads (`PUT {url}`), speaking what @mux/upchunk and GCS-style clients
// expect: chunks carry `Content-Range`, bytes already stored are skipped (so a re-sent chunk is
// harmless), intermediate answers say how much is stored, and the request without `Content-Range`
// is the whole file. Bytes are appended to disk as they arrive, so memory does not grow with the file.

export type ReceiveOutcome = { complete: false; received: number } | { complete: true; received: number };

type Request = {
  uploadId: string;
  token: string | null;
  // undefined: the body is the whole file.
  contentRange: UploadContentRange | undefined;
  contentLength: number | undefined;
  body: AsyncIterable<Uint8Array> | null;
};

const DRAIN_AFTER_LIMIT_BYTES = 64 * 1024 * 1024;

const describeEnd = (upload: StoredUpload): string =>
  ({
    cancelled: 'This upload was cancelled',
    timed_out: 'This upload timed out before the file was complete',
    errored: `This upload failed${upload.errorMessage ? `: ${upload.errorMessage}` : ''}`,
  })[upload.status] ?? `This upload is ${upload.status}`;

const failUpload = async (upload: StoredUpload, message: string): Promise<void> => {
  await getDb().$transaction(async (tx) => {
    const updated = await tx.upload.updateMany({
      where: { id: upload.id, status: 'waiting' },
      data: { status: 'errored', errorType: 'invalid_input', errorMessage: message },
    });
    if (updated.count > 0) await recordUploadEvent(tx, 'video.upload.errored', await tx.upload.findUniqueOrThrow({ where: { id: upload.id } }));
  });
  await dropUploadBytes(upload.id);
};

const tooLarge = async (upload: StoredUpload, bytes: number, maxBytes: number): Promise<never> => {
  const message = `The file is larger than the maximum input size of ${maxBytes} bytes (${bytes} bytes or more were sent)`;
  await failUpload(upload, message);
  throw new ApiError('payload_too_large', message);
};

// Appends the part of `body` that lies in [skip, limit) of the request body to the file and
// returns how many body bytes there were (stopping early once past `limit`).
const appendBody = async (
  file: string,
  body: AsyncIterable<Uint8Array> | null,
  { skip, limit }: { skip: number; limit: number },
): Promise<{ bodyBytes: number }> => {
  await mkdir(path.dirname(file), { recursive: true });
  const handle = await open(file, 'a');
  let bodyBytes = 0;
  try {
    if (body) {
      for await (const chunk of body) {
        const chunkStart = bodyBytes;
        bodyBytes += chunk.byteLength;
        const from = Math.max(0, skip - chunkStart);
        const to = Math.min(chunk.byteLength, limit - chunkStart);
        if (to > from) await handle.write(chunk.subarray(from, to));
        // Past the limit the request is refused, but reading (and dropping) a little more lets the
        // client finish sending and see the answer on a connection that stays usable.
        if (bodyBytes > limit + DRAIN_AFTER_LIMIT_BYTES) break;
      }
    }
  } finally {
    // What was written is a valid prefix even if the client went away mid-chunk: keep it durable
    // before saying how much is stored.
    await handle.datasync().catch(() => undefined);
    await handle.close();
  }
  return { bodyBytes };
};

export const receiveUploadBytes = async (request: Request): Promise<ReceiveOutcome> => {
  const { uploadId, contentRange, contentLength, body } = request;
  const tokenCheck = await checkUploadUrlToken({ key: uploadUrlKey(), token: request.token, uploadId });
  if (tokenCheck === 'invalid') throw new ApiError('forbidden', 'The upload URL is not valid for this upload');

  return uploadLock().run(uploadId, async () => {
    const env = getEnv();
    const db = getDb();
    const upload = await expireUploadIfDue(await findUploadOrThrow(db, uploadId));
    const file = uploadDataPath(env.dataDir, uploadId);

    if (upload.status === 'asset_created') {
      // The client did not see our answer to its last chunk and sent it again: everything is here.
      const total = Number(upload.totalBytes ?? 0);
      if (contentRange === undefined || contentRange.total === total || upload.totalBytes === null) {
        return { complete: true, received: total };
      }
      throw new ApiError('conflict', `This upload is already complete with ${total} bytes`);
    }
    if (upload.status !== 'waiting') throw new ApiError('gone', describeEnd(upload));

    const declaredTotal = contentRange?.total ?? contentLength;
    if (declaredTotal !== undefined && declaredTotal > env.maxInputBytes) await tooLarge(upload, declaredTotal, env.maxInputBytes);

    if (contentRange && upload.totalBytes !== null && Number(upload.totalBytes) !== contentRange.total) {
      throw new ApiError(
        'invalid_parameters',
        `Content-Range total ${contentRange.total} differs from the ${upload.totalBytes} bytes announced earlier`,
      );
    }

    // Chunks of one upload may have reached other nodes before this one (see shared-upload-parts.ts).
    let received = contentRange ? await catchUpFromSharedParts(uploadId, file, contentRange.kind === 'chunk' ? contentRange.start : contentRange.total) : 0;
    if (contentRange?.kind === 'status') {
      if (received < contentRange.total) return { complete: false, received };
    } else if (contentRange?.kind === 'chunk') {
      if (contentRange.start > received) {
        throw new ApiError(
          'conflict',
          `This chunk starts at byte ${contentRange.start} but only ${received} bytes have been received; send the bytes from ${received} on`,
          receivedRangeHeader(received),
        );
      }
      if (upload.totalBytes === null) await db.upload.update({ where: { id: uploadId }, data: { totalBytes: BigInt(contentRange.total) } });
      const chunkLength = contentRange.end - contentRange.start + 1;
      const { bodyBytes } = await appendBody(file, body, { skip: received - contentRange.start, limit: chunkLength });
      if (bodyBytes > chunkLength) {
        await truncate(file, received);
        throw new ApiError('invalid_parameters', `The body has more bytes than the Content-Range ${contentRange.start}-${contentRange.end} announces`);
      }
      received = await receivedByteCount(file);
      if (received < contentRange.total) {
        // Shared before the answer: the client sends the next chunk only after it, maybe to another
        // node. The whole chunk, not only what this request appended: a chunk re-sent after a failed
        // share appends nothing, and must still reach the bucket.
        await shareAppendedPart(uploadId, file, contentRange.start, Math.min(contentRange.end, received - 1));
        return { complete: false, received };
      }
    } else {
      // One request carries the whole file: start from nothing, whatever an earlier attempt left.
      await mkdir(path.dirname(file), { recursive: true });
      await truncate(file, 0).catch(() => undefined);
      const limit = contentLength ?? env.maxInputBytes;
      const { bodyBytes } = await appendBody(file, body, { skip: 0, limit });
      if (bodyBytes > limit) {
        if (contentLength === undefined) await tooLarge(upload, bodyBytes, env.maxInputBytes);
        await truncate(file, 0);
        throw new ApiError('invalid_parameters', `The body has more bytes than its Content-Length of ${contentLength}`);
      }
      received = await receivedByteCount(file);
      if (contentLength !== undefined && received < contentLength) return { complete: false, received };
      await db.upload.update({ where: { id: uploadId }, data: { totalBytes: BigInt(received) } });
    }

    const outcome = await completeUpload({ uploadId });
    if (!outcome.completed) {
      const ended = await findUploadOrThrow(db, uploadId);
      // Another node stored the same last chunk first (a client retrying elsewhere): its asset is this one's.
      if (ended.status === 'asset_created') {
        await dropLocalUploadCopy(uploadId);
        return { complete: true, received };
      }
      // Cancelled or timed out while the bytes were arriving.
      await dropUploadBytes(uploadId);
      throw new ApiError('gone', describeEnd(ended));
    }
    shareUploadedFile({ uploadId, assetId: outcome.assetId });
    dropSharedPartsInBackground(uploadId);
    return { complete: true, received };
  });
};
