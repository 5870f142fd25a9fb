// Escaping for text and double-quoted attribute values of the player's HTML: everything that
// could end a value or open markup is an entity.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (char) => ENTITIES[char]!);

/** `name="value"` pairs, or a bare `name` for a boolean attribute that is on. */
export type HtmlAttributes = Array<[name: string, value: string | true]>;

export const renderAttributes = (attributes: HtmlAttributes): string =>
  attributes.map(([name, value]) => (value === true ? ` ${name}` : ` ${name}="${escapeHtml(value)}"`)).join('');
