import { isWellFormedId } from '../utils/id-format';

// URLs in beacons lose their query string and fragment before they are kept: signed playback
// URLs carry their token there. And the playback ID a view played, read from its source URL's
// path (`/{playback_id}.m3u8` on whatever host served it).

export const withoutQuery = (url: string): string => {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
};

export const playbackIdInSourceUrl = (url: string | null | undefined): string | null => {
  if (!url) return null;
  let pathname: string;
  try {
    pathname = new URL(url, 'http://placeholder.invalid').pathname;
  } catch {
    return null;
  }
  const match = /^\/([0-9A-Za-z]+)\.m3u8$/.exec(pathname);
  return match && isWellFormedId(match[1] as string) ? (match[1] as string) : null;
};
