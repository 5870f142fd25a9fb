import { describe, expect, test } from 'vitest';
import { DownloadError } from '../../ingest/download-to-file';
import { isPassingDownloadFailure } from './fetch-text-track-file';

describe('isPassingDownloadFailure', () => {
  test('network trouble and server errors are tried again; what the URL owner must fix is not', () => {
    const passing = [
      new DownloadError('timeout', 'x'),
      new DownloadError('connect_failed', 'x'),
      new DownloadError('network', 'x'),
      new DownloadError('truncated', 'x'),
      new DownloadError('http_status', 'x', { httpStatus: 503 }),
      new DownloadError('http_status', 'x', { httpStatus: 429 }),
    ];
    const lasting = [
      new DownloadError('http_status', 'x', { httpStatus: 404 }),
      new DownloadError('http_status', 'x', { httpStatus: 403 }),
      new DownloadError('invalid_url', 'x'),
      new DownloadError('forbidden_address', 'x'),
      new DownloadError('too_many_redirects', 'x'),
      new DownloadError('too_large', 'x'),
      new DownloadError('empty', 'x'),
      new DownloadError('unsupported_encoding', 'x'),
    ];
    for (const error of passing) expect(isPassingDownloadFailure(error), `${error.code} ${error.httpStatus}`).toBe(true);
    for (const error of lasting) expect(isPassingDownloadFailure(error), `${error.code} ${error.httpStatus}`).toBe(false);
  });
});
