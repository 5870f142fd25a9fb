// ffmpeg arguments that read the CEA-608 captions an H.264 video carries in its SEI (ATSC A/53
// cc_data) out as WebVTT. lavfi's movie source with `+subcc` exports what the H.264 decoder finds
// as a subtitle stream, which ffmpeg's cc_dec decodes; cc_dec follows channel 1 of one field, so
// CC1 (field 1) and CC3 (field 2) can be read, CC2 and CC4 (each field's second channel) cannot.

export type ReadableCea608Channel = 'cc1' | 'cc3';

export const isReadableCea608Channel = (channel: string): channel is ReadableCea608Channel => channel === 'cc1' || channel === 'cc3';

// A path as a filter option value, inside a filter graph: escaped once for the option parser
// (\ ' :) and once more for the graph parser (\ ' [ ] , ;).
export const escapeFilterPath = (filePath: string): string =>
  filePath.replace(/[\\':]/g, (character) => `\\${character}`).replace(/[\\'[\],;]/g, (character) => `\\${character}`);

export const cea608ToWebVttArgs = ({ input, channel, output }: { input: string; channel: ReadableCea608Channel; output: string }): string[] => [
  '-hide_banner',
  '-nostdin',
  '-loglevel',
  'error',
  // A decoder option of this input's subtitle stream: which field's captions cc_dec follows.
  '-data_field',
  channel === 'cc1' ? 'first' : 'second',
  '-f',
  'lavfi',
  '-i',
  `movie=filename=${escapeFilterPath(input)}[out0+subcc]`,
  '-map',
  '0:s:0',
  '-c:s',
  'webvtt',
  '-f',
  'webvtt',
  '-y',
  output,
];
