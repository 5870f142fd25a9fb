import { LIVE_CASES, livePlayableTargetMs, type LiveCase, type LiveModeResult, type LiveResult } from './live';
import type { LiveSimulcastResult } from './live-simulcast';
import { SLATE_CASES, showsSlate, type LiveSlateCase, type LiveSlateResult } from './live-slate';
import {
  LIVE_CAPTIONS_LATENCY_TARGET_MODE,
  LIVE_CAPTIONS_LATENCY_TARGET_SECONDS,
  LIVE_CAPTIONS_WER_TARGET,
  type LiveCaptionsResult,
  type LiveCaptionsRun,
  type Spread,
} from './live-captions';
import type { LiveHostileResult } from './live-hostile';
import type { LatencyMode } from './live-api';
import type { Target } from './bench-results';
import { formatMs, formatRatio, median, round } from '../stats';

// The live streaming section of bench/results.md.

const cell = (value: string | number | null | undefined) => (value === null || value === undefined ? 'n/a' : String(value));
const table = (header: string[], rows: Array<Array<string | number | null | undefined>>): string =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');

/** What a report section says of a case that did not run or failed. */
const notMeasured = (outcome: { status: 'error'; error: string } | { status: 'skipped'; reason: string }): string =>
  `Not measured: ${outcome.status === 'error' ? outcome.error : outcome.reason}.`;
const seconds = (value: number | null | undefined, digits = 2) => (value === null || value === undefined ? 'n/a' : `${round(value, digits)} s`);
const perSecond = (value: number | null | undefined) => (value === null || value === undefined ? 'n/a' : `${round(value, 3)}`);
const check = (pass: boolean | null) => (pass === null ? '' : pass ? ' ✅' : ' ❌');

const renderHeader = (value: LiveResult): string => {
  const inputs = value.inputs
    .map((input) => {
      const video = input.properties?.video;
      return `${input.label}: ${video?.width}x${video?.height} H.264 ${video?.profile ?? ''} ${video?.bitrateKbps ? `${round(video.bitrateKbps / 1000, 2)} Mb/s` : ''}, keyframe every ${video?.keyframeIntervalSeconds ?? '?'} s, ${video?.bFrames ?? '?'} B-frames in the first ${video?.framesInspected ?? '?'} frames, AAC 128 kb/s`;
    })
    .join('; ');
  return (
    `One fresh server (RTMP ingest on a free port, ${value.server.playbackWorkers} playback workers, LIVE_MAX_STREAMS raised to ${value.server.env.LIVE_MAX_STREAMS} for the concurrency steps, ` +
      `x264 preset ${value.server.env.LIVE_X264_PRESET}). Publishers: \`ffmpeg -re -stream_loop -1 -i <file> -c copy -f flv rtmp://127.0.0.1:<port>/app/<key>\` — a pre-encoded ` +
      `testsrc2 + 440 Hz file looped in real time without encoding (${inputs}). testsrc2 is flat colours and sharp edges: the bit rates are realistic, the pictures ` +
      'much easier to encode than camera footage, so the encoded rungs cost less here than they would with a camera. ' +
      `Live streams are created through the API without new_asset_settings (no recording, so no on-demand ingest after each broadcast) and with reconnect_window 0 (except in the slate case), generated_subtitles only in the captions case.` +
    (value.server.idleCpuPerSecond === null
      ? ''
      : ` The idle server (app + playback workers, after the latency runs, no broadcast and no request) used ${perSecond(value.server.idleCpuPerSecond)} CPU-s/s: the floor under every server figure below.`)
  );
};

const renderLatency = (value: LiveResult): string[] => {
  const { options } = value;
  const parts: string[] = [];
  parts.push('### Latency, stalls and time to a playable playlist (720p30)');
  parts.push(
    table(
      [
        'Mode', 'Ingest', 'Segment / part', 'Glass-to-glass median', 'p95', 'Target', `At ${options.settleSeconds} s`, 'Against the publisher\'s clock', 'hls.latency median', 'hls.js target latency',
        'Player clock', 'Machine busy (other work)', `Stalls in ${options.playbackSeconds} s`, 'Startup', 'Connect → multivariant 200', 'Connect → playable (runs)', 'Target', 'Media 0 sent → playable',
      ],
      value.modes.map((mode) => {
        const playback = mode.playback;
        const latencyPass = playback?.medianLatencySeconds === null || playback?.medianLatencySeconds === undefined ? null : playback.medianLatencySeconds <= mode.latencyTargetSeconds;
        const playablePass = mode.medianPlayableMs === null ? null : mode.medianPlayableMs <= mode.playableTargetMs;
        return [
          mode.mode,
          mode.ingest,
          `${mode.segmentSeconds} s${mode.partSeconds ? ` / ${mode.partSeconds} s parts` : ''}`,
          playback ? `**${seconds(playback.medianLatencySeconds)}**${check(latencyPass)}` : `failed: ${mode.playbackError ?? '?'}`,
          seconds(playback?.p95LatencySeconds),
          `≤ ${mode.latencyTargetSeconds} s`,
          seconds(playback?.firstLatencySeconds),
          seconds(mode.publisherClockLatencySeconds),
          seconds(playback?.medianHlsLatencySeconds),
          seconds(playback?.targetLatencySeconds),
          playback?.playbackRate === null || playback?.playbackRate === undefined ? 'n/a' : `${playback.playbackRate}×`,
          mode.playbackMachine ? `${mode.playbackMachine.busyPercent ?? 'n/a'} % (${mode.playbackMachine.otherWorkPercent ?? 'n/a'} %)` : 'n/a',
          playback ? `**${playback.stalls}**${check(playback.stalls === 0)}` : 'n/a',
          formatMs(playback?.startupMs),
          formatMs(mode.medianMultivariantMs),
          `**${formatMs(mode.medianPlayableMs)}**${check(playablePass)} (${mode.playable.map((sample) => formatMs(sample.playableMs)).join(', ')})`,
          `≤ ${formatMs(mode.playableTargetMs)}`,
          formatMs(median(mode.playable.map((sample) => sample.fromMediaStartMs).filter((value): value is number => value !== null))),
        ];
      }),
    ),
  );
  const pdts = value.modes.flatMap((mode) => mode.programDateTime.map((check) => ({ mode: `${mode.mode} over ${mode.ingest}`, ...check })));
  const errors = pdts.map((entry) => entry.errorMs).filter((entry): entry is number => entry !== null);
  parts.push(
    `Glass-to-glass = Date.now() − hls.playingDate (the EXT-X-PROGRAM-DATE-TIME of the frame on screen, which the server sets to when the frame reached the ingest), ` +
      `sampled once a second from ${options.settleSeconds} s to ${options.playbackSeconds} s after the first frame, by a viewer joining ${options.joinAfterSeconds} s after the publisher started ` +
      '(a broadcast already running: hls.js starts three target durations behind the edge only once the playlist is that long, and one joining earlier stays as far behind as the broadcast was old); ' +
      `hls.js ${value.hlsJsVersion} with its default configuration ` +
      '(lowLatencyMode on) in the system Chromium, muted, from a page on its own origin. hls.latency is hls.js\'s distance to the live edge of the playlist, which cannot see ' +
      'the packaging delay. "Against the publisher\'s clock" adds the played publish\'s program-date-time error (below) to the median: the latency with exact dates. ' +
      '"Player clock" is media seconds played per wall second over the samples: below 1 the player drifts away from the live edge (hls.js\'s default ' +
      'maxLiveSyncPlaybackRate of 1 never speeds up to catch up), so latency grows through the minute. A stall is a `waiting` event after the first `playing`. ' +
      'Connect → playable: from spawning the publisher to the multivariant playlist answering 200 and its first media playlist listing a segment (polled every 50 ms); ' +
      `the first run of each mode is the one played, ${options.playableSamples - 1} more per mode only time this. "Media 0 sent → playable" starts the clock when the ` +
      'publisher, done starting and connecting, sent its first media (from its -progress reports) instead.',
  );
  if (pdts.length > 0) {
    parts.push(
      `**Program date times checked against the publisher's clock** (first segment of each publish, ${pdts.length} publishes): the date − when that frame was sent ` +
        `(the publisher's media-time origin from its -progress reports + the frame's media time read from the segment) was ` +
        `${errors.length > 0 ? `${Math.min(...errors)} to ${Math.max(...errors)} ms` : 'n/a'}; ` +
        `dates were ${Math.min(...pdts.map((entry) => entry.pdtMinusSpawnMs))}–${Math.max(...pdts.map((entry) => entry.pdtMinusSpawnMs))} ms after the publisher's spawn, ` +
        `its media 0 went out ${pdts.map((entry) => entry.originMinusSpawnMs).filter((entry) => entry !== null).join('/')} ms after spawn, and the first frame packaged was at media time ` +
        `${[...new Set(pdts.map((entry) => entry.firstFrameMediaSeconds))].join(', ')} s. A positive error makes the measured latency that much shorter than the truth.`,
    );
  }
  const hlsErrors = value.modes.filter((mode) => (mode.playback?.errors.length ?? 0) > 0);
  if (hlsErrors.length > 0) {
    parts.push(`hls.js errors (non-fatal unless marked): ${hlsErrors.map((mode) => `${mode.mode} over ${mode.ingest}: ${mode.playback?.errors.join(', ')}`).join('; ')}.`);
  }
  return parts;
};

const renderSimulcast = (value: LiveResult): string[] => {
  const parts: string[] = [];
  parts.push('### Simulcast to local RTMP receivers (720p30)');
  const simulcast = value.simulcast;
  parts.push(
    simulcast.status === 'ok'
      ? `${simulcast.value.targets} targets (${simulcast.value.receiverKinds.join(', ')}), each writing what arrives to a file: first media there ` +
          `${simulcast.value.firstBytesMs.map((ms) => formatMs(ms)).join(', ')} after the publisher's spawn (limit ${formatMs(SIMULCAST_FIRST_BYTES_LIMIT_MS)}); ` +
          `each restream (the server's ffmpeg copying the broadcast to one target) used ${simulcast.value.restreamCpuPerSecond.join(', ')} CPU-s/s over ` +
          `${simulcast.value.windowSeconds} s (limit ${SIMULCAST_CPU_PER_TARGET_LIMIT}, against the receivers that announce their chunk size as ingest servers do; ` +
          `an ffmpeg listener leaves RTMP's 128-byte chunks).${simulcast.value.skipped ? ` Not run: ${simulcast.value.skipped}.` : ''}`
      : notMeasured(simulcast),
  );
  return parts;
};

const slateRow = (entry: LiveSlateCase): Array<string | number | null> => {
  const measured = entry.measured;
  if (!measured) return [entry.label, entry.slate ? 'yes' : 'no', `failed: ${entry.error}`];
  const { playback, slateCpu } = measured;
  return [
    entry.label,
    entry.slate ? 'yes' : 'no',
    `${entry.segmentSeconds} s`,
    `**${playback.stalls}**${entry.slate ? check(playback.stalls === 0) : ''}`,
    seconds(measured.stalledSeconds),
    measured.stallTimeline.map((stall) => `${seconds(stall.seconds)} at ${stall.fromKillSeconds >= 0 ? '+' : ''}${stall.fromKillSeconds} s (${seconds(stall.skippedSeconds, 3)} skipped)`).join(', ') || '–',
    playback.fatal ? JSON.stringify(playback.fatal) : 'none',
    formatMs(measured.killToSlateListedMs),
    seconds(measured.slateListedSeconds, 1),
    formatMs(measured.republishToResumedListedMs),
    `${seconds(measured.latencyBeforeKillSeconds)} / ${seconds(measured.latencyAfterReturnSeconds)}`,
    slateCpu ? `${perSecond(slateCpu.cpuPerSecond)} (${slateCpu.cpuSeconds} CPU-s; running ${formatMs(slateCpu.killToProcessMs)} after the kill)` : 'none running',
    `${formatMs(measured.gapMs)}, ${seconds(measured.playedAfterRepublishSeconds, 1)} played after`,
  ];
};

const slateMethod = (value: LiveResult, slate: LiveSlateResult): string =>
  `${slate.cases.length} streams one after the other, 720p30, reconnect_window ${slate.reconnectWindowSeconds} s, no reconnect_slate_url (the default card): standard latency ` +
  'without a slate (the control: the playlist stops growing while the publisher is away), the same with use_slate_for_standard_latency (the slate is the only difference, ' +
  'so these two are the side by side), and reduced latency (1 s segments; a reconnect window turns its slate on). For each, hls.js ' +
  `${value.hlsJsVersion} (default configuration) in Chromium joins ${slate.joinAfterSeconds} s after the publisher's spawn and plays; ${slate.playBeforeKillSeconds} s after its first frame ` +
  `the publisher is killed (SIGKILL, as an encoder that crashes: the connection drops without the stream being closed), a new one publishes ${slate.gapSeconds} s later, and the ` +
  `player goes on for ${slate.playAfterReturnSeconds} s more. A stall is a \`waiting\` event after the first \`playing\` and lasts until the next \`playing\` (or the end); its start ` +
  'is given from the kill, and "skipped" is how far currentTime jumped meanwhile (a hole in the buffer hls.js seeked over, or a jump towards the live edge). The source ' +
  'media playlist is polled every 100 ms: "kill → slate listed" is the first segment after a new EXT-X-DISCONTINUITY while the publisher is away, "republish → resumed ' +
  'listed" the first after the discontinuity that follows the gap (for the control, the first after the gap). Latency is glass-to-glass (Date.now() − hls.playingDate), ' +
  'the median before the kill and over the last 5 s. The slate\'s ffmpeg (the server\'s child with anullsrc and the realtime filter in its arguments) is read from /proc ' +
  'every 200 ms between the kill and the republish: CPU-s per second between its first and last sighting; its CPU-s in all include its start-up.';

const renderSlate = (value: LiveResult): string[] => {
  const parts = ['### Reconnect slates: a publisher gap inside the reconnect window (720p30)'];
  const outcome = value.slate;
  if (outcome.status !== 'ok') return [...parts, notMeasured(outcome)];
  const slate = outcome.value;
  parts.push(
    table(
      [
        'Stream', 'Slate', 'Segment', 'Stalls after the first frame', 'Stalled', 'Stalls (start from the kill, media skipped)', 'Fatal error', 'Kill → slate listed', 'Slate listed',
        'Republish → resumed listed', 'Latency before the kill / after the return', 'Slate ffmpeg CPU-s/s', 'Gap (kill → republish)',
      ],
      slate.cases.map(slateRow),
    ),
  );
  parts.push(slateMethod(value, slate));
  const withErrors = slate.cases.filter((entry) => (entry.measured?.playback.errors.length ?? 0) > 0);
  if (withErrors.length > 0) {
    parts.push(`hls.js errors (non-fatal unless marked): ${withErrors.map((entry) => `${entry.label}: ${entry.measured?.playback.errors.join(', ')}`).join('; ')}.`);
  }
  return parts;
};

const spread = (value: Spread) => `${seconds(value.median)} / ${seconds(value.p90)} / ${seconds(value.max)}`;
const percent = (rate: number) => `${round(rate * 100, 1)} %`;

// The latency target is the issue's, for reduced latency; held to every cue (the max).
const captionsLatencyPass = (run: LiveCaptionsRun): boolean | null => {
  const latest = run.measured?.fromEndSeconds.max ?? null;
  return run.latencyMode !== LIVE_CAPTIONS_LATENCY_TARGET_MODE || latest === null ? null : latest <= LIVE_CAPTIONS_LATENCY_TARGET_SECONDS;
};

const captionsRow = (run: LiveCaptionsRun): Array<string | number | null> => {
  const measured = run.measured;
  if (!measured) return [run.latencyMode, `${run.segmentSeconds} s`, `failed: ${run.error}`];
  const { recogniser, wer } = measured;
  return [
    run.latencyMode,
    `${run.segmentSeconds} s`,
    `${measured.cues} (${measured.lateCues} late, ${measured.cuesAfterStop} only at the stop)`,
    `**${spread(measured.fromEndSeconds)}**${check(captionsLatencyPass(run))}`,
    run.latencyMode === LIVE_CAPTIONS_LATENCY_TARGET_MODE ? `max ≤ ${LIVE_CAPTIONS_LATENCY_TARGET_SECONDS} s` : '–',
    spread(measured.fromStartSeconds),
    `**${percent(wer.rate)}**${check(wer.rate <= LIVE_CAPTIONS_WER_TARGET)} (${wer.substitutions} sub, ${wer.deletions} del, ${wer.insertions} ins of ${wer.referenceWords})`,
    `≤ ${percent(LIVE_CAPTIONS_WER_TARGET)}`,
    recogniser ? `**${perSecond(recogniser.cpuPerAudioSecond)}**` : 'not seen',
    recogniser ? `${recogniser.recogniserCpuSeconds} + ${recogniser.feederCpuSeconds ?? 'n/a'} for ${seconds(measured.audioSeconds, 1)}${recogniser.exited ? '' : ' (still running at the end)'}` : 'n/a',
  ];
};

const captionsMethod = (captions: LiveCaptionsResult): string =>
  `The captions script (${captions.clip.reference.split(/\s+/).length} words) read by festival's HTS voice, ${seconds(captions.clip.durationSeconds, 1)} with a silence from ` +
  `${captions.clip.silence.start} to ${captions.clip.silence.end} s and ${captions.clip.trailingSilenceSeconds} s more after it, is the sound of the 720p30 input (its picture copied), ` +
  'published in real time as the other cases are, to a stream with generated_subtitles (English); reduced latency, then standard, one after the other. The subtitles playlist ' +
  `is polled every ${captions.pollMs} ms and each newly listed WebVTT segment fetched at once. A cue's latency is when it was first listed (a cue spanning segments counts ` +
  'once, by start and text) − when its words were said: the publisher\'s media-time origin (from its -progress reports) + the segment\'s X-TIMESTAMP-MAP + the cue\'s end ' +
  `(or start) time. The publisher stops ${captions.listenAfterSpeechSeconds} s after the speech's end (past the server's hold-back of 3 s after a segment); cues listed only ` +
  'once it stopped are in the transcript but not in the latency. "Late": listed in a segment that starts after the cue does (the recogniser answered after its own segment ' +
  'was listed). WER: the cues in order against the script (lower-cased, without punctuation). Recogniser CPU: pocketsphinx_continuous and the cat feeding it (the server\'s ' +
  'children, read from /proc every 250 ms until the recogniser exits after the broadcast; model loading included) ÷ the seconds of audio published, silences included.';

const renderCaptions = (value: LiveResult): string[] => {
  const parts = ['### Generated live captions (festival speech, 720p30)'];
  const outcome = value.captions;
  if (outcome.status !== 'ok') return [...parts, notMeasured(outcome)];
  parts.push(
    table(
      [
        'Stream', 'Segment', 'Cues', "Listed after the words' end: median / p90 / max", 'Target', 'After their start: median / p90 / max', 'WER', 'Target',
        'Recogniser CPU-s per audio s', 'Recogniser + cat CPU-s',
      ],
      outcome.value.runs.map(captionsRow),
    ),
  );
  parts.push(captionsMethod(outcome.value));
  // What the WER was computed on, once per distinct transcript (the modes usually hear the same).
  const byTranscript = new Map<string, LatencyMode[]>();
  for (const run of outcome.value.runs) if (run.measured) byTranscript.set(run.measured.transcript, [...(byTranscript.get(run.measured.transcript) ?? []), run.latencyMode]);
  for (const [transcript, modes] of byTranscript) parts.push(`Live transcript (${modes.join(', ')}): _${transcript}_`);
  return parts;
};

const renderCpu = (value: LiveResult): string[] => {
  const { options } = value;
  const parts: string[] = [];
  parts.push('### CPU per stream, side by side with plain ffmpeg');
  const cpuRows = value.cpu.map((entry) => {
    if (entry.status !== 'ok') return [entry.input, entry.status === 'error' ? `failed: ${entry.error}` : `skipped: ${entry.reason}`];
    const cpu = entry.value;
    return [
      cpu.input,
      cpu.rungs.join(' + '),
      perSecond(cpu.keyframe.packagerCpuPerSecond),
      perSecond(cpu.keyframe.serverCpuPerSecond),
      `**${perSecond(cpu.keyframe.totalCpuPerSecond)}**`,
      `**${perSecond(cpu.peer.totalCpuPerSecond)}**`,
      `**${formatRatio(cpu.totalVsPeer)}**`,
      formatRatio(cpu.packagerVsPeer),
      formatRatio(cpu.aboveIdleVsPeer),
      `${cpu.keyframe.minListedRate ?? 'n/a'}× / ${cpu.peer.minListedRate ?? 'n/a'}×`,
      `${formatMs(cpu.keyframe.playableMs)} / ${formatMs(cpu.peer.playableMs)}`,
      `${perSecond(cpu.keyframe.publisherCpuPerSecond)} / ${perSecond(cpu.peer.publisherCpuPerSecond)}`,
    ];
  });
  parts.push(
    table(
      ['Input', 'Ladder', 'Keyframe packager ffmpeg', 'Keyframe server (node)', 'Keyframe total', 'Plain ffmpeg (peer)', 'Total ÷ peer', 'Packager ÷ peer', 'Total above the idle server ÷ peer', 'Slowest variant listed (Keyframe / peer)', 'Spawn → playable (Keyframe / peer)', 'Publisher (Keyframe / peer)'],
      cpuRows,
    ),
  );
  const firstCpu = value.cpu.find((entry) => entry.status === 'ok');
  parts.push(
    `CPU seconds per wall-clock second (1 = one core) from /proc/<pid>/stat over the last ${options.cpuWindowSeconds} s of a ${options.cpuRunSeconds} s publish (standard latency), ` +
      'one stream at a time. Keyframe = its packager ffmpeg (the server\'s child reading rtmp://127.0.0.1…) + the server\'s node processes (RTMP ingest, fMP4 splitting, ' +
      'segment writes, playlists; one poller read each variant playlist once a second, as one viewer would). The peer is what a user would run instead: one ffmpeg that is ' +
      'itself the RTMP endpoint (`-listen 1`) and writes the same ladder (source copied, the same encoded rungs with the same x264 settings, audio copied into each variant) ' +
      `as fMP4 HLS with 2 s segments; run right after Keyframe on the same kind of publisher. "Listed" = media seconds listed per wall second (≥ ${options.minRate}: kept up).` +
      (firstCpu?.status === 'ok' ? ` Peer command: \`${firstCpu.value.peerArgs}\`.` : ''),
  );
  return parts;
};

const renderConcurrency = (value: LiveResult): string[] => {
  const { options } = value;
  const parts: string[] = [];
  parts.push('### Concurrent streams in real time');
  for (const entry of value.concurrency) {
    if (entry.status !== 'ok') {
      parts.push(`${entry.input}: ${entry.status === 'error' ? `**failed:** ${entry.error}` : `_skipped: ${entry.reason}_`}`);
      continue;
    }
    const result = entry.value;
    parts.push(`**${result.input}: ${result.heldUpTo} stream(s) held** (stopped: ${result.stoppedBecause}).`);
    parts.push(
      table(
        ['Streams', 'Holds', 'Slowest listed rate (fitted)', 'Slowest new EXTINF ÷ wall', 'Slowest publisher', 'Packagers CPU-s/s', 'Server CPU-s/s', 'Machine busy', 'of which other work', 'Why not'],
        result.steps.map((step) => [
          step.streams,
          step.holds ? '✅' : '❌',
          step.minListedRate === null ? 'n/a' : `${step.minListedRate}×`,
          step.minNewExtinfPerSecond === null ? 'n/a' : `${step.minNewExtinfPerSecond}×`,
          step.minPublisherRate === null ? 'n/a' : `${step.minPublisherRate}×`,
          perSecond(step.packagerCpuPerSecond),
          perSecond(step.serverCpuPerSecond),
          step.machineBusyPercent === null ? 'n/a' : `${step.machineBusyPercent} %`,
          step.otherWorkPercent === null ? 'n/a' : `${step.otherWorkPercent} %`,
          step.reasons.join('; '),
        ]),
      ),
    );
  }
  parts.push(
    `N publishers start at once (standard latency); each step lasts ${options.stepSeconds} s and is judged on its last ${options.stepWindowSeconds} s. Every variant playlist of every ` +
      'stream is read every 500 ms; a segment\'s media end (the running sum of EXTINF) against when it was first listed gives, by least squares, the media seconds listed per ' +
      `wall second (the playlist's growth, without the ±1 segment a two-point difference has); a step holds when every variant of every stream grows at ≥ ${options.minRate}×, ` +
      'every publisher could send at that rate (from its -progress reports), and the server logged no packager failure and no RTMP reader falling behind. "New EXTINF ÷ wall" ' +
      'is the plain sum of the EXTINF of the segments first listed in the window ÷ its length (it moves by one segment, 2 s / 30 s, with the polling phase). The packager\'s ' +
      'own speed is not exposed by the server (Broadcast.lastSpeed is kept in memory only), so playlist growth is the measure. Machine busy is of both cores (100 % = 2 cores).',
  );
  return parts;
};

// Undisturbed, for the watched broadcast: a new segment at least every two segment durations
// (one duration plus the 250 ms poll is the usual), and the good target's file never still for 2 s.
const HOSTILE_MAX_SEGMENT_WAIT_SEGMENTS = 2;
const HOSTILE_MAX_TARGET_STILL_MS = 2_000;

const hostileChecks = (hostile: LiveHostileResult): Array<Array<string | number | null>> => {
  const { broadcast, goodTarget } = hostile;
  const maxWaitMs = HOSTILE_MAX_SEGMENT_WAIT_SEGMENTS * hostile.segmentSeconds * 1000;
  // Webhook types, each with how often it came: "none" is what undisturbed looks like.
  const none = (types: string[]) => [...new Set(types)].map((type) => `${type} × ${types.filter((other) => other === type).length}`).join(', ') || 'none';
  return [
    ['Segments listed in the window', `${broadcast.segmentsListed} in ${seconds(hostile.windowSeconds, 1)}`, `about one per ${hostile.segmentSeconds} s`],
    ['Media sequence numbers skipped', `**${broadcast.msnGaps}**${check(broadcast.msnGaps === 0)}`, '0'],
    ['Discontinuities added (a packager restart adds one)', `${broadcast.newDiscontinuities}${check(broadcast.newDiscontinuities === 0)}`, '0'],
    [
      'Longest wait for the next new segment (when it began, s into the window)',
      `**${formatMs(broadcast.longestBetweenNewSegmentsMs)}**${check(broadcast.longestBetweenNewSegmentsMs <= maxWaitMs)} (at ${broadcast.longestWaitFromSeconds} s)`,
      `≤ ${formatMs(maxWaitMs)} (segments are ${hostile.segmentSeconds} s)`,
    ],
    ['Segment / playlist requests that failed', `${broadcast.segmentFetchFailures} / ${broadcast.playlistFetchFailures}${check(broadcast.segmentFetchFailures + broadcast.playlistFetchFailures === 0)}`, '0 / 0'],
    ['Publisher', `${broadcast.publisherRunning ? 'still connected' : 'gone'}, sent ${broadcast.publisherRate ?? 'n/a'}× real time${check(broadcast.publisherRunning)}`, 'connected, 1×'],
    ['Watched stream: status at the end; its webhooks in the window', `${broadcast.statusAtEnd ?? 'n/a'}; ${none(broadcast.streamEventsInWindow)}${check(broadcast.statusAtEnd === 'active' && broadcast.streamEventsInWindow.length === 0)}`, 'active; none'],
    [
      'Good target: its receiver\'s file at the start → end of the window',
      `${round(goodTarget.bytesAtStart / 1e6, 2)} → ${round(goodTarget.bytesAtEnd / 1e6, 2)} MB (${goodTarget.growthKbps ?? 'n/a'} kb/s)${check(goodTarget.bytesAtEnd > goodTarget.bytesAtStart)}`,
      'growing',
    ],
    [
      'Good target: longest time its file did not grow (when it began)',
      `**${formatMs(goodTarget.longestStillMs)}**${check(goodTarget.longestStillMs <= HOSTILE_MAX_TARGET_STILL_MS)} (at ${goodTarget.longestStillFromSeconds} s)`,
      `≤ ${formatMs(HOSTILE_MAX_TARGET_STILL_MS)}`,
    ],
    ['Good target: status at the end; its webhooks in the window', `${goodTarget.statusAtEnd ?? 'n/a'}; ${none(goodTarget.eventsInWindow)}${check(goodTarget.statusAtEnd === 'broadcasting' && goodTarget.eventsInWindow.length === 0)}`, 'broadcasting; none'],
    [
      "The server's ffmpeg children at the end",
      `${hostile.serverFfmpegAtEnd.packagers} packager, ${hostile.serverFfmpegAtEnd.restreams} restream(s), ${hostile.serverFfmpegAtEnd.srtRelays} SRT relay(s), ${hostile.serverFfmpegAtEnd.other} other${check(hostile.serverFfmpegAtEnd.srtRelays + hostile.serverFfmpegAtEnd.other === 0)}`,
      '1 packager, restreams, nothing else',
    ],
  ];
};

const renderHostile = (value: LiveResult): string[] => {
  const parts = ['### Hostile input while a broadcast is watched (720p30)'];
  const outcome = value.hostile;
  if (outcome.status !== 'ok') return [...parts, notMeasured(outcome)];
  const hostile = outcome.value;
  parts.push(
    table(
      ['Hostile input', 'A clear answer is', 'What came back', 'Act → answer', 'At (s into the window)'],
      hostile.acts.map((act) => [act.input, act.expected, `${act.result}${check(act.clear)}`, formatMs(act.afterMs), act.atSeconds]),
    ),
  );
  parts.push(
    table(
      ['Bad simulcast target', "Publisher's spawn → first errored webhook", 'Status at the end', 'Its webhooks by status (broadcast start → window end)', 'Connections it accepted'],
      hostile.badTargets.map((target) => [
        target.label,
        `${formatMs(target.firstErroredAfterMs)}${check(target.firstErroredAfterMs !== null)}`,
        target.statusAtEnd,
        Object.entries(target.events).map(([status, count]) => `${status} × ${count}`).join(', ') || 'none',
        target.connections ?? '–',
      ]),
    ),
  );
  parts.push(table(['Undisturbed', 'Measured', 'Expected'], hostileChecks(hostile)));
  const warnings = Object.entries(hostile.serverWarnings).map(([message, count]) => `"${message}" × ${count}`).join(', ');
  parts.push(
    `One ${hostile.latencyMode}-latency stream (${hostile.segmentSeconds} s segments) is published with the 720p30 input and restreamed to three simulcast targets created while it was idle: ` +
      'a good one (an ffmpeg RTMP listener writing to a file), one on a closed local port and one whose server accepts each connection, reads its first bytes and drops it. ' +
      'A viewer without a player polls its first rendition\'s media playlist every 250 ms and fetches every newly listed segment; the receiver\'s file size is read every 250 ms; ' +
      'a webhook receiver records every event with its arrival. ' +
      `Once the good target has bytes and both bad ones have errored, the window opens: the hostile inputs above, one after another 2 s apart; it closes ` +
      `${seconds(hostile.windowSeconds - (hostile.acts.at(-1)?.atSeconds ?? 0), 1)} after the last one began (${seconds(hostile.windowSeconds, 1)} in all). A refused publisher is ffmpeg publishing the same file, timed from its spawn to its exit (its own start-up included); what it said is its last message, the ingest URL left out; ` +
      'junk is timed from the bytes sent to the server closing the connection; the slate case publishes a second stream (reduced, reconnect window 10 s) whose reconnect_slate_url answers ' +
      'an HTML page, timed from its publisher\'s spawn to the warning webhook, then completes it through the API. Malformed target URLs are posted to that stream while it is idle ' +
      '(targets can only be added then). Server warnings logged in the window: ' +
      `${warnings || 'none'}.`,
  );
  return parts;
};

export const renderLive = (value: LiveResult): string[] => {
  const sections: Record<LiveCase, (result: LiveResult) => string[]> = {
    latency: renderLatency,
    simulcast: renderSimulcast,
    slate: renderSlate,
    captions: renderCaptions,
    cpu: renderCpu,
    concurrency: renderConcurrency,
    hostile: renderHostile,
  };
  // The cases that ran, in the order they run.
  return [renderHeader(value), ...LIVE_CASES.filter((liveCase) => value.options.cases.includes(liveCase)).flatMap((liveCase) => sections[liveCase](value))];
};

// SRT beside RTMP in the same run (issue 30): its glass-to-glass against the publisher's clock (the
// server dates frames when they reach the RTMP session, after SRT's own receive latency, so the
// viewer's figure alone would hide what SRT adds) and its connect → playable. The allowance is
// libsrt's default receive latency (120 ms), what SRT spends by design to recover lost packets,
// plus a frame.
const SRT_LATENCY_ALLOWANCE_MS = 150;

const withPass = (spec: Omit<Target, 'pass'>): Target => ({ ...spec, pass: spec.value === null ? null : spec.value <= spec.limit });

export const srtIngestTargets = (mode: LatencyMode, rtmp: LiveModeResult | undefined, srt: LiveModeResult | undefined): Target[] => {
  const rtmpLatency = rtmp?.publisherClockLatencySeconds ?? null;
  const srtLatency = srt?.publisherClockLatencySeconds ?? null;
  return [
    withPass({
      id: `live_srt_latency_over_rtmp_${mode}`,
      description: `SRT glass-to-glass minus RTMP's, ${mode} (against the publisher's clock, medians, one run side by side)`,
      value: rtmpLatency === null || srtLatency === null ? null : Math.round((srtLatency - rtmpLatency) * 1000),
      limit: SRT_LATENCY_ALLOWANCE_MS,
      unit: 'ms',
      note: rtmpLatency !== null && srtLatency !== null ? `SRT ${srtLatency} s, RTMP ${rtmpLatency} s; SRT stalls ${srt?.playback?.stalls ?? 'n/a'}` : (srt?.playbackError ?? undefined),
    }),
    withPass({
      id: `live_srt_playable_${mode}`,
      description: `SRT publisher connect → playable playlist, ${mode} (median; the same limit as RTMP's)`,
      value: srt?.medianPlayableMs ?? null,
      limit: livePlayableTargetMs(mode),
      unit: 'ms',
      note: srt ? `runs: ${srt.playable.map((sample) => formatMs(sample.playableMs)).join(', ')}; RTMP ${formatMs(rtmp?.medianPlayableMs ?? null)}` : undefined,
    }),
  ];
};

/** Issue 30: a local RTMP receiver has the stream within 3 s of the broadcast starting; a restream costs at most 0.02 core. */
export const SIMULCAST_FIRST_BYTES_LIMIT_MS = 3_000;
export const SIMULCAST_CPU_PER_TARGET_LIMIT = 0.02;

export const simulcastTargets = (outcome: LiveResult['simulcast'] | undefined): Target[] => {
  const value: LiveSimulcastResult | null = outcome?.status === 'ok' ? outcome.value : null;
  const failure = outcome?.status === 'error' ? outcome.error : outcome?.status === 'skipped' ? outcome.reason : undefined;
  // Ingest servers announce their chunk size (nginx-rtmp 4096, node-media-server 60000); an ffmpeg
  // listener does not, and the restream then writes 128-byte chunks: reported, not the target.
  const realistic = value ? value.restreamCpuPerSecond.filter((_, index) => value.receiverKinds[index] !== 'ffmpeg -listen') : [];
  const cpu = realistic.length > 0 ? Math.max(...realistic) : null;
  return [
    withPass({
      id: 'live_simulcast_first_bytes',
      description: `Publisher spawn → first media at a local RTMP simulcast receiver (median of ${value?.targets ?? 'n/a'} targets)`,
      value: value?.medianFirstBytesMs ?? null,
      limit: SIMULCAST_FIRST_BYTES_LIMIT_MS,
      unit: 'ms',
      note: value ? `each: ${value.firstBytesMs.map((ms) => formatMs(ms)).join(', ')}` : failure,
    }),
    withPass({
      id: 'live_simulcast_cpu_per_target',
      description: 'CPU of one simulcast restream to an ingest server (nginx-rtmp), CPU-s per second',
      value: cpu === null || Number.isNaN(cpu) ? null : cpu,
      limit: SIMULCAST_CPU_PER_TARGET_LIMIT,
      unit: 'ratio',
      note: value ? `each (${value.receiverKinds.join(', ')}): ${value.restreamCpuPerSecond.join(', ')} over ${value.windowSeconds} s` : failure,
    }),
  ];
};

/** Issue target: a slate bridges a 10 s publisher gap without a single stall in hls.js. */
export const slateTargets = (outcome: LiveResult['slate'] | undefined): Target[] => {
  const value = outcome?.status === 'ok' ? outcome.value : null;
  const failure = outcome?.status === 'error' ? outcome.error : outcome?.status === 'skipped' ? outcome.reason : undefined;
  const control = value?.cases.find((entry) => !entry.slate)?.measured;
  return SLATE_CASES.filter(showsSlate).map((spec) => {
    const entry = value?.cases.find((candidate) => candidate.label === spec.label);
    const measured = entry?.measured ?? null;
    return withPass({
      id: `live_slate_stalls_${spec.latencyMode}`,
      description: `Stalls in hls.js across a ${value?.gapSeconds ?? 10} s publisher gap inside the reconnect window (slate), ${spec.label}`,
      value: measured?.playback.stalls ?? null,
      limit: 0,
      unit: 'count',
      note: measured
        ? `${seconds(measured.stalledSeconds)} stalled; fatal: ${measured.playback.fatal ? JSON.stringify(measured.playback.fatal) : 'none'}; the control without a slate: ` +
          `${control ? `${control.playback.stalls} stall(s), ${seconds(control.stalledSeconds)}` : 'n/a'}`
        : (entry?.error ?? failure),
    });
  });
};

/** Issue 30: cues within 6 s of the speech in reduced mode (every cue: the max), and the live transcript's WER ≤ 30 %. */
export const liveCaptionsTargets = (outcome: LiveResult['captions'] | undefined): Target[] => {
  const failure = outcome?.status === 'error' ? outcome.error : outcome?.status === 'skipped' ? outcome.reason : undefined;
  const run = outcome?.status === 'ok' ? outcome.value.runs.find((candidate) => candidate.latencyMode === LIVE_CAPTIONS_LATENCY_TARGET_MODE) : undefined;
  const measured = run?.measured ?? null;
  const latest = measured?.fromEndSeconds.max ?? null;
  return [
    withPass({
      id: `live_captions_latency_${LIVE_CAPTIONS_LATENCY_TARGET_MODE}`,
      description: `Generated live captions, ${LIVE_CAPTIONS_LATENCY_TARGET_MODE}: the latest cue's words' end → first listed in the subtitles playlist (max over cues)`,
      value: latest === null ? null : Math.round(latest * 1000),
      limit: LIVE_CAPTIONS_LATENCY_TARGET_SECONDS * 1000,
      unit: 'ms',
      note: measured ? `median ${measured.fromEndSeconds.median} s, p90 ${measured.fromEndSeconds.p90} s over ${measured.cues} cues (${measured.lateCues} late)` : (run?.error ?? failure),
    }),
    withPass({
      id: `live_captions_wer_${LIVE_CAPTIONS_LATENCY_TARGET_MODE}`,
      description: `Generated live captions, ${LIVE_CAPTIONS_LATENCY_TARGET_MODE}: word error rate of the live transcript (festival speech)`,
      value: measured ? round(measured.wer.rate, 3) : null,
      limit: LIVE_CAPTIONS_WER_TARGET,
      unit: 'ratio',
      note: measured ? `recogniser ${measured.recogniser?.cpuPerAudioSecond ?? 'n/a'} CPU-s per audio second` : (run?.error ?? failure),
    }),
  ];
};
