import type { CollectorResult } from './collector';

// The beacon collector section of bench/results.md.

const cell = (value: string | number | null | undefined) => (value === null || value === undefined ? 'n/a' : String(value));
const table = (header: string[], rows: Array<Array<string | number | null | undefined>>): string =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
const statusList = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, count]) => `${status === '-1' ? 'network error' : status}: ${count}`)
    .join(', ');

export const renderCollector = (value: CollectorResult): string[] => {
  const { options } = value;
  return [
    `mux-embed-shaped beacons POSTed to \`/\` of a fresh server behind ${value.playbackWorkers} playback worker, open-loop at ` +
      `${options.ratePerSecond}/s for ${options.seconds} s (achieved ${value.achievedRatePerSecond}/s) from ${options.clients} loopback addresses ` +
      `(each a client of its own for the per-client rate limit); ${Math.round(options.malformedShare * 100)} % malformed (not JSON, no view_id, ` +
      `301 events, wrong types), the rest views of ${options.beaconsPerView} beacons (viewstart/play/playing, heartbeats with the player's aggregates, viewend).`,
    table(
      ['Beacons', 'Sent', 'Answers', 'p50', 'p95', 'p99', 'max'],
      [
        ['valid', value.sent.valid, statusList(value.statuses.valid), ...Object.values(value.latencyMs.valid).map((ms) => (ms === null ? null : `${ms} ms`))],
        ['malformed', value.sent.malformed, statusList(value.statuses.malformed), ...Object.values(value.latencyMs.malformed).map((ms) => (ms === null ? null : `${ms} ms`))],
      ],
    ),
    value.slow.count === 0
      ? 'No answer took more than 500 ms.'
      : `${value.slow.count} answers took more than 500 ms, sent between ${value.slow.firstSentAtSecond} s and ${value.slow.lastSentAtSecond} s into the load ` +
        `(per second: ${Object.entries(value.slow.perSecond).map(([second, count]) => `${second} s: ${count}`).join(', ')}).`,
    `Valid beacons not answered 200: **${value.validRefused}**; malformed ones not answered 400: **${value.malformedNot400}**. ` +
      `Views written: **${cell(value.views.stored)} of ${value.views.sent}**, all of them ${cell(value.views.secondsToAllStored)} s after the load ended.`,
    table(
      ['Server RSS', 'at rest', 'peak', 'writes done + 10 s', `+ ${Math.round(options.idleWaitMs / 1000)} s (kept states aged out)`],
      [
        ['VmRSS', `${cell(value.rssMB.before)} MB`, `${cell(value.rssMB.peak)} MB`, `${cell(value.rssMB.afterWrites)} MB`, `${cell(value.rssMB.afterIdle)} MB`],
        ['RssAnon', `${cell(value.anonMB.before)} MB`, 'n/a', `${cell(value.anonMB.afterWrites)} MB`, `${cell(value.anonMB.afterIdle)} MB`],
      ],
    ),
  ];
};
