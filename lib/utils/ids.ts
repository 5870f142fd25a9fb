import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 44;

// Opaque, URL-safe, base62 ids of the length Mux uses; rejection sampling keeps every character
// uniformly distributed.
export const generateId = (length = ID_LENGTH): string => {
  let id = '';
  while (id.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) id += ALPHABET[byte % 62];
      if (id.length === length) break;
    }
  }
  return id;
};

export { isWellFormedId } from './id-format';
