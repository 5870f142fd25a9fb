// `?download=<name>` on a static rendition: the browser saves the file instead of playing it.
//
// The name is the caller's, so it is cleaned before it goes into a header: only its last path
// part is kept, control characters and quotes go, and the file's own extension (.mp4 / .m4a) is
// appended unless the name already ends with it (Mux's examples pass `?download=cats`; a saved
// file with no extension would open nowhere). An empty result falls back to the file's name.
// Non-ASCII names keep their characters in `filename*` (RFC 6266/8187), with an ASCII stand-in in
// `filename` for old clients.

const MAX_NAME_LENGTH = 200;

export const downloadFileName = (requested: string, fileName: string): string => {
  const extension = fileName.slice(fileName.lastIndexOf('.'));
  const lastPart = requested.split(/[/\\]/).at(-1) ?? '';
  const cleaned = lastPart.replace(/[\u0000-\u001f\u007f"]/g, '').trim().replace(/^\.+/, '').slice(0, MAX_NAME_LENGTH);
  if (cleaned === '') return fileName;
  return cleaned.toLowerCase().endsWith(extension) ? cleaned : `${cleaned}${extension}`;
};

const encodeExtValue = (value: string): string =>
  encodeURIComponent(value).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

export const downloadDisposition = (requested: string, fileName: string): string => {
  const name = downloadFileName(requested, fileName);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/\\/g, '_');
  return ascii === name ? `attachment; filename="${name}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeExtValue(name)}`;
};
