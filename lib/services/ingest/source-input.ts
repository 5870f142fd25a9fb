import { getEnv } from '../../env';
import { isStoredFile, sourceFilePath } from '../../storage/asset-files';
import { processSingleton } from '../../utils/process-singleton';

// Where readers of an asset's source (segment and audio encodes, images) find it. An asset can be
// ready while its source is still downloading; then readers get a loopback URL that serves the
// bytes as they arrive. After a restart the download resumes in the ingest job, so a reader that
// finds neither waits for one of them to appear.

const SOURCE_WAIT_MS = 60_000;
const POLL_MS = 100;

const downloadingSources = () => processSingleton('downloading-sources', () => new Map<string, string>());

/** Readers of `assetId` use `url` until the returned function is called. */
export const registerDownloadingSource = (assetId: string, url: string): (() => void) => {
  downloadingSources().set(assetId, url);
  return () => {
    if (downloadingSources().get(assetId) === url) downloadingSources().delete(assetId);
  };
};

export class SourceUnavailableError extends Error {
  constructor(assetId: string) {
    super(`the source of asset ${assetId} is not available (its download has not resumed)`);
    this.name = 'SourceUnavailableError';
  }
}

/** A path or URL ffmpeg can read the source from. */
export const sourceInput = async (assetId: string): Promise<string> => {
  const stored = sourceFilePath(getEnv().dataDir, assetId);
  const deadline = Date.now() + SOURCE_WAIT_MS;
  for (;;) {
    if (await isStoredFile(stored)) return stored;
    const downloading = downloadingSources().get(assetId);
    if (downloading) return downloading;
    if (Date.now() > deadline) throw new SourceUnavailableError(assetId);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
};
