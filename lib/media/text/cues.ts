// A text track's content, whatever it came from (an uploaded WebVTT or SRT file, generated
// captions): timed cues on the asset's timeline, written out as WebVTT and as a plain transcript.

export type Cue = {
  /** Seconds from the start of the asset. */
  start: number;
  end: number;
  /** The cue payload: lines separated by \n (WebVTT markup allowed, e.g. <i>…</i>). */
  text: string;
  /** WebVTT cue identifier, kept from the source when it had one. */
  id?: string;
  /** WebVTT cue settings (`line:0 align:start`), kept from the source. */
  settings?: string;
};

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** `HH:MM:SS.mmm`, the form every WebVTT parser accepts. */
export const formatTimestamp = (seconds: number): string => {
  const totalMs = Math.max(0, Math.round(seconds * 1000));
  const ms = totalMs % 1000;
  const totalSeconds = (totalMs - ms) / 1000;
  return `${pad(Math.floor(totalSeconds / 3600), 2)}:${pad(Math.floor(totalSeconds / 60) % 60, 2)}:${pad(totalSeconds % 60, 2)}.${pad(ms, 3)}`;
};

// A payload must not contain a blank line (it would end the cue) or "-->" (it would start one).
const safePayload = (text: string) =>
  text
    .split('\n')
    .map((line) => line.replace(/-->/g, '→').trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n');

/** A complete WebVTT file; `header` lines (e.g. X-TIMESTAMP-MAP) go right after the signature. */
export const renderWebVtt = (cues: Cue[], { header = [] }: { header?: string[] } = {}): string => {
  const blocks = [['WEBVTT', ...header].join('\n')];
  for (const cue of cues) {
    const payload = safePayload(cue.text);
    if (payload === '') continue;
    const timing = `${formatTimestamp(cue.start)} --> ${formatTimestamp(cue.end)}${cue.settings ? ` ${cue.settings}` : ''}`;
    blocks.push([...(cue.id ? [cue.id.replace(/\n/g, ' ')] : []), timing, payload].join('\n'));
  }
  return `${blocks.join('\n\n')}\n`;
};

/** The words of the cues without timing or markup, one cue per line: what `…/text/{id}.txt` serves. */
export const renderTranscript = (cues: Cue[]): string => {
  const lines = cues
    .map((cue) =>
      cue.text
        .replace(/<[^>]*>/g, '')
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&nbsp;/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((line) => line !== '');
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
};
