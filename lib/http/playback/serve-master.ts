import type { IncomingMessage, ServerResponse } from 'node:http';
import { getMasterFile } from '../../services/master/get-master-file';
import { isApiError } from '../api-error';
import { sendPlaybackError, sendUnexpectedPlaybackError, sendPlaybackReply } from './send-playback-reply';

// Temporary master downloads on the playback host (see lib/auth/master-url.ts): the file with
// Range and HEAD, `&download=<name>` for an attachment, cacheable privately until the URL expires.

const MASTER_PATH = /^\/master\/([A-Za-z0-9]{1,64})\/(mezzanine\.(?:mp4|m4a))$/;

export const matchMasterPath = (pathname: string): { assetId: string; fileName: string } | null => {
  const match = MASTER_PATH.exec(pathname);
  return match ? { assetId: match[1]!, fileName: match[2]! } : null;
};

// A quoted ASCII fallback and the exact name (RFC 6266 / RFC 8187).
export const attachmentDisposition = (name: string): string => {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_').slice(0, 200) || 'download';
  // encodeURIComponent leaves ' ( ) * alone, which RFC 8187's attr-char does not allow.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
};

export const serveMaster = async (
  request: IncomingMessage,
  response: ServerResponse,
  { assetId, fileName, query }: { assetId: string; fileName: string; query: URLSearchParams },
): Promise<void> => {
  try {
    const file = await getMasterFile({ assetId, fileName, expires: query.get('expires'), signature: query.get('signature') });
    const download = query.get('download');
    const maxAge = Math.max(0, file.expiresAt - Math.floor(Date.now() / 1000));
    await sendPlaybackReply(
      request,
      response,
      { filePath: file.path, lastModified: file.lastModified, contentType: file.audioOnly ? 'audio/mp4' : 'video/mp4', cacheControl: `private, max-age=${maxAge}` },
      { extraHeaders: download ? ['content-disposition', attachmentDisposition(download)] : undefined },
    );
  } catch (error) {
    if (isApiError(error)) return sendPlaybackError(response, error);
    sendUnexpectedPlaybackError(response, error, { assetId }, 'serving a master failed');
  }
};
