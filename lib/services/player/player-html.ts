import { escapeHtml, renderAttributes, type HtmlAttributes } from './html';

// The player page's HTML: a full-viewport <mux-player> (its own controls, menus and errors) or,
// when there is nothing to play, a readable message in the same frame. No inline script, so the
// page works under a strict script-src.

const STYLE = [
  'html,body{margin:0;height:100%;background:#000;color:#f4f4f5;font:16px/1.5 system-ui,sans-serif;overflow:hidden}',
  'mux-player{display:block;width:100%;height:100%;--media-object-fit:contain}',
  '.message{box-sizing:border-box;height:100%;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:1.5rem;text-align:center}',
  '.message h1{margin:0 0 .5rem;font-size:1.25rem}',
  '.message p{margin:0;max-width:36rem;color:#d4d4d8}',
].join('');

const head = (title: string, extra: string) =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${extra}<style>${STYLE}</style></head>`;

export type PlayerPage = {
  title: string;
  /** Where the page loads mux-player from (served by Keyframe, see player-script.ts). */
  scriptUrl: string;
  /** oEmbed discovery: the /oembed URL for this page. */
  oembedUrl: string;
  attributes: HtmlAttributes;
};

export const renderPlayerPage = ({ title, scriptUrl, oembedUrl, attributes }: PlayerPage): string =>
  head(
    title,
    `<link rel="alternate" type="application/json+oembed" href="${escapeHtml(oembedUrl)}" title="${escapeHtml(title)}">` +
      `<script src="${escapeHtml(scriptUrl)}" defer></script>`,
  ) + `<body><mux-player${renderAttributes(attributes)}></mux-player></body></html>\n`;

export const renderPlayerMessage = ({ heading, detail }: { heading: string; detail: string }): string =>
  head(heading, '') +
  `<body><main class="message" role="alert"><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(detail)}</p></main></body></html>\n`;
