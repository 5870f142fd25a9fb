// Reading WebVTT as the tests and benchmarks check it (the server's own parser is what they test):
// each cue's times and text (its lines joined by spaces), and an HLS segment's X-TIMESTAMP-MAP.

export type VttCue = { start: number; end: number; text: string };

/** A WebVTT segment's cues, and its X-TIMESTAMP-MAP's MPEGTS in seconds (null without one). */
export const parseWebVtt = (text: string): { mpegtsSeconds: number | null; cues: VttCue[] } => {
  const map = /X-TIMESTAMP-MAP=MPEGTS:(\d+),LOCAL:00:00:00\.000/.exec(text);
  const seconds = (stamp: string) => stamp.split(':').reduce((sum, part) => sum * 60 + Number(part), 0);
  const cues = text
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .flatMap((block) => {
      const lines = block.trim().split('\n');
      const timing = lines.findIndex((line) => line.includes(' --> '));
      if (timing === -1) return [];
      // Cue settings may follow the end time.
      const [start = '', end = ''] = (lines[timing] ?? '').split(' --> ').map((stamp) => stamp.trim().split(/\s+/)[0] ?? '');
      return [{ start: seconds(start), end: seconds(end), text: lines.slice(timing + 1).join(' ').trim() }];
    });
  return { mpegtsSeconds: map ? Number(map[1]) / 90_000 : null, cues };
};
