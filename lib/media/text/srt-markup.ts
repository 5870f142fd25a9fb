// SRT cue text as a WebVTT payload. SRT editors write a little HTML (<b>, <i>, <u>, <font color>)
// and SSA override codes ({\an8} puts a line at the top); WebVTT keeps bold, italic and underline
// and has no colour without a stylesheet. Anything else that looks like markup is text in SRT, so
// its `<` and `&` are escaped to show as written instead of breaking the WebVTT parser.

const KEPT_TAGS = new Set(['b', 'i', 'u']);
const TAG = /<[^<>]*>/g;
// As in HTML, the name follows `<` (or `</`) at once: `a < b > c` is text.
const TAG_PARTS = /^<(\/)?([a-zA-Z]+)(?:\s[^>]*)?\/?\s*>$/;
const SSA_OVERRIDE = /\{\\[^{}]*\}/g;
// SSA numpad alignment: 7, 8 and 9 are the top row.
const SSA_TOP = /\\an?[789]\b/;
const ENTITY = /^&(?:amp|lt|gt|nbsp|lrm|rlm|#\d{1,7}|#x[0-9a-fA-F]{1,6});/;

const escapeText = (text: string): string =>
  text.replace(/[&<>]/g, (character, offset: number) => {
    if (character === '<') return '&lt;';
    if (character === '>') return '&gt;';
    return ENTITY.test(text.slice(offset)) ? '&' : '&amp;';
  });

const convertTag = (tag: string): string => {
  const parts = TAG_PARTS.exec(tag);
  const name = parts?.[2]?.toLowerCase();
  if (!parts || !name) return escapeText(tag);
  if (KEPT_TAGS.has(name)) return parts[1] ? `</${name}>` : `<${name}>`;
  if (name === 'font') return '';
  if (name === 'br') return '\n';
  return escapeText(tag);
};

export const srtTextToWebVtt = (text: string): { text: string; settings?: string } => {
  let top = false;
  const withoutOverrides = text.replace(SSA_OVERRIDE, (override) => {
    if (SSA_TOP.test(override)) top = true;
    return '';
  });
  let converted = '';
  let last = 0;
  for (const match of withoutOverrides.matchAll(TAG)) {
    converted += escapeText(withoutOverrides.slice(last, match.index)) + convertTag(match[0]);
    last = match.index + match[0].length;
  }
  converted += escapeText(withoutOverrides.slice(last));
  return top ? { text: converted, settings: 'line:0' } : { text: converted };
};
