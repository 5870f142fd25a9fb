// The bytes of an uploaded subtitle file as text. Files in the wild are UTF-8 (with or without a
// BOM), UTF-16 from Windows tools (usually with a BOM), or Windows-1252 from older SRT editors;
// anything with binary bytes in it is not a subtitle file at all.

export type DecodedText = { ok: true; text: string; encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' } | { ok: false; reason: string };

// Windows-1252 differs from Latin-1 in 0x80–0x9F only (undefined bytes stay as they are).
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

const decodeWindows1252 = (bytes: Uint8Array): string => {
  let text = '';
  for (const byte of bytes) text += byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH[byte - 0x80] : String.fromCharCode(byte);
  return text;
};

// UTF-16 without a BOM: text in Latin scripts has a zero byte in every other position.
const guessUtf16 = (bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null => {
  const sample = bytes.subarray(0, 4096 - (Math.min(bytes.length, 4096) % 2));
  if (sample.length < 4) return null;
  let zeroEven = 0;
  let zeroOdd = 0;
  for (let index = 0; index < sample.length; index++) {
    if (sample[index] !== 0) continue;
    if (index % 2 === 0) zeroEven++;
    else zeroOdd++;
  }
  const pairs = sample.length / 2;
  if (zeroOdd > pairs * 0.4 && zeroEven < pairs * 0.05) return 'utf-16le';
  if (zeroEven > pairs * 0.4 && zeroOdd < pairs * 0.05) return 'utf-16be';
  return null;
};

// Control characters other than tab, line feed, form feed and carriage return. A DOS end-of-file
// mark (Ctrl-Z) at the very end is common enough to be dropped rather than refused.
const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

const checkText = (text: string, encoding: Extract<DecodedText, { ok: true }>['encoding']): DecodedText => {
  const trimmed = text.replace(/\u001a+\s*$/, '');
  const control = CONTROL.exec(trimmed);
  if (control) {
    const line = trimmed.slice(0, control.index).split(/\r\n|\r|\n/).length;
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return { ok: false, reason: `line ${line}: the file is not text (control character U+${code}); a WebVTT or SRT file is expected` };
  }
  return { ok: true, text: trimmed, encoding };
};

export const decodeTextFile = (bytes: Uint8Array): DecodedText => {
  if (bytes.length === 0) return { ok: false, reason: 'the file is empty' };
  const [first, second, third] = bytes;
  // TextDecoder drops the BOM itself.
  if (first === 0xef && second === 0xbb && third === 0xbf) return decodeStrict(bytes, 'utf-8');
  if (first === 0xff && second === 0xfe) return decodeStrict(bytes, 'utf-16le');
  if (first === 0xfe && second === 0xff) return decodeStrict(bytes, 'utf-16be');
  const utf16 = guessUtf16(bytes);
  if (utf16) return decodeStrict(bytes, utf16);
  const zero = bytes.indexOf(0);
  if (zero !== -1) return { ok: false, reason: `the file is not text (a zero byte at offset ${zero}); a WebVTT or SRT file is expected` };
  try {
    return checkText(new TextDecoder('utf-8', { fatal: true }).decode(bytes), 'utf-8');
  } catch {
    return checkText(decodeWindows1252(bytes), 'windows-1252');
  }
};

const decodeStrict = (bytes: Uint8Array, encoding: 'utf-8' | 'utf-16le' | 'utf-16be'): DecodedText => {
  try {
    return checkText(new TextDecoder(encoding, { fatal: true }).decode(bytes), encoding);
  } catch {
    return { ok: false, reason: `the file is not valid ${encoding.toUpperCase()} text` };
  }
};
