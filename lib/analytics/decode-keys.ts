import { FIRST_WORDS, OTHER_WORDS } from './key-words';

// Undoes mux-embed's key abbreviation (§7.3): first character → first word; then, repeatedly, a
// run of digits (a numeric word, as written), `_word_` (a word mux-embed did not know), or two
// characters from the dictionary. A first word mux-embed did not know arrives as `word_`.
// A key that fits neither form is kept as sent, so nothing a player reports is lost.

const decodeRest = (rest: string): string[] | null => {
  const words: string[] = [];
  let index = 0;
  while (index < rest.length) {
    const char = rest[index] as string;
    if (char >= '0' && char <= '9') {
      let end = index + 1;
      while (end < rest.length && (rest[end] as string) >= '0' && (rest[end] as string) <= '9') end += 1;
      words.push(rest.slice(index, end));
      index = end;
      continue;
    }
    if (char === '_') {
      const close = rest.indexOf('_', index + 1);
      if (close <= index + 1) return null;
      words.push(rest.slice(index + 1, close));
      index = close + 1;
      continue;
    }
    const word = OTHER_WORDS[rest.slice(index, index + 2)];
    if (word === undefined) return null;
    words.push(word);
    index += 2;
  }
  return words;
};

const decodeWithKnownFirstWord = (key: string): string | null => {
  const first = FIRST_WORDS[key[0] ?? ''];
  if (first === undefined) return null;
  const rest = decodeRest(key.slice(1));
  return rest === null ? null : [first, ...rest].join('_');
};

const decodeWithUnknownFirstWord = (key: string): string | null => {
  const separator = key.indexOf('_');
  if (separator < 1) return null;
  const rest = decodeRest(key.slice(separator + 1));
  return rest === null ? null : [key.slice(0, separator), ...rest].join('_');
};

const decoded = new Map<string, string>();
const MAX_REMEMBERED_KEYS = 5_000;

/** The full snake_case name of an abbreviated beacon key (or the key itself when it does not decode). */
export const decodeKey = (key: string): string => {
  const known = decoded.get(key);
  if (known !== undefined) return known;
  const name = decodeWithKnownFirstWord(key) ?? decodeWithUnknownFirstWord(key) ?? key;
  // Keys come from clients: only a bounded number of distinct ones is remembered.
  if (decoded.size < MAX_REMEMBERED_KEYS) decoded.set(key, name);
  return name;
};

/** An event with its keys decoded. */
export const decodeEventKeys = (event: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) result[decodeKey(key)] = value;
  return result;
};
