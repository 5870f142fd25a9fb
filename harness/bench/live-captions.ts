import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { LATENCY_PROFILES } from '../../lib/services/live/latency-profiles';
import type { AccessToken } from './bench-server';
import { createLiveStream, multivariantUrlOf, redactKeys, rtmpUrlOf, waitForNoPackagers, type BenchLiveStream, type LatencyMode, type LiveCaseContext } from './live-api';
import type { LiveInput } from './live-inputs';
import { fetchText, parseMediaPlaylist, waitForPlayable } from './live-playlists';
import { cpuSecondsOf, startLivePublisher, type LivePublisher } from './live-processes';
import type { KeyframeProcess } from '../keyframe-process';
import { descendantsOf, runCommand, type ProcessEntry } from '../processes';
import { makeSpeechClip, type SpeechClip } from '../speech-fixtures';
import { errorMessage, median, percentile, round, sleep } from '../stats';
import { parseWebVtt, type VttCue } from '../webvtt';
import { wordErrorRate, type WordErrorRate } from '../word-error-rate';

// Generated live captions: festival's HTS voice reading the captions script (speech-fixtures.ts,
// two halves with 4 s of silence between) as the sound of the 720p30 publisher input, whose
// picture is stream-copied, so the server encodes its usual ladder beside the recogniser. One
// stream with generated_subtitles per latency mode, reduced then standard, one after the other.
// Per stream:
//  - each cue's latency: when it was first listed in the subtitles playlist (polled every 150 ms,
//    each newly listed WebVTT segment fetched at once) − when its words were said, that is the
//    publisher's media-time origin (from its -progress reports: with -re, media time t goes out at
//    origin + t) + the cue's media time (X-TIMESTAMP-MAP's MPEGTS + the cue's time);
//  - the live transcript's word error rate against the script;
//  - the recogniser's CPU (pocketsphinx_continuous and the `cat` feeding it, children of the
//    server's `sh -c 'cat | exec stdbuf -oL …'`) per second of audio published.
// Silence follows the speech in the published file, so the last words are listed by the live
// rules (the recogniser answered past the segment, or the server's hold-back ran out) before the
// publisher stops; a stopping publisher would list whatever is pending at once.

export const LIVE_CAPTIONS_MODES: readonly LatencyMode[] = ['reduced', 'standard'];
/** Issue 30: cues within 6 s of the speech in reduced mode (held to every cue: the max). */
export const LIVE_CAPTIONS_LATENCY_TARGET_SECONDS = 6;
export const LIVE_CAPTIONS_LATENCY_TARGET_MODE: LatencyMode = 'reduced';
export const LIVE_CAPTIONS_WER_TARGET = 0.3;

const SUBTITLES = { name: 'English (generated)', language_code: 'en' };
const PLAYLIST_POLL_MS = 150;
const RECOGNISER_POLL_MS = 250;
const TRAILING_SILENCE_SECONDS = 10;
// Listening stops (and the publisher with it) this long after the speech ended: past the server's
// 3 s hold-back after a 2 s segment, short of the file's end (the publisher loops its input).
const LISTEN_AFTER_SPEECH_SECONDS = 8;
// After the stop, the broadcast's end lists what is still pending; read for the transcript only.
const LISTEN_AFTER_STOP_MS = 5_000;
const RECOGNISER_EXIT_TIMEOUT_MS = 15_000;

/** The generated subtitles rendition's media playlist, from the multivariant playlist's EXT-X-MEDIA line. */
export const subtitlesPlaylistUrl = (multivariantUrl: string, multivariant: string): string | null => {
  const uri = /^#EXT-X-MEDIA:TYPE=SUBTITLES,.*URI="([^"]+)"/m.exec(multivariant)?.[1];
  return uri === undefined ? null : new URL(uri, multivariantUrl).toString();
};

/** One WebVTT segment as first seen: `startSeconds` on the connection's timeline (the sum of the EXTINF before it). */
export type ListedSegment = {
  msn: number;
  startSeconds: number;
  durationSeconds: number;
  listedAtMs: number;
  mpegtsSeconds: number | null;
  cues: VttCue[];
  /** Listed after the publisher stopped: the broadcast's end, not the live rules, listed it. */
  afterStop: boolean;
};

export type CueTiming = VttCue & {
  msn: number;
  /** Listed in a segment that starts after the cue does: the recogniser answered after its own segment was listed. */
  late: boolean;
  afterStop: boolean;
  /** First listed − when the cue's last (first) words were said. */
  fromEndSeconds: number;
  fromStartSeconds: number;
};

/**
 * Each cue once, at its first listing (a cue spanning segments is in each of them; they are told
 * apart by start and text, as players do), in the order said. `mediaOriginMs`: when the publisher
 * sent media time 0.
 */
export const cueTimings = (segments: readonly ListedSegment[], mediaOriginMs: number): CueTiming[] => {
  const first = new Map<string, CueTiming>();
  for (const segment of [...segments].sort((a, b) => a.listedAtMs - b.listedAtMs || a.msn - b.msn)) {
    const saidAtMs = (cueSeconds: number) => mediaOriginMs + ((segment.mpegtsSeconds ?? 0) + cueSeconds) * 1000;
    for (const cue of segment.cues) {
      const key = `${cue.start}|${cue.text}`;
      if (first.has(key)) continue;
      first.set(key, {
        ...cue,
        msn: segment.msn,
        // A millisecond of slack for the cue times' rounding in the WebVTT text.
        late: cue.start < segment.startSeconds - 0.001,
        afterStop: segment.afterStop,
        fromEndSeconds: round((segment.listedAtMs - saidAtMs(cue.end)) / 1000, 3),
        fromStartSeconds: round((segment.listedAtMs - saidAtMs(cue.start)) / 1000, 3),
      });
    }
  }
  return [...first.values()].sort((a, b) => a.start - b.start);
};

export type Spread = { median: number | null; p90: number | null; max: number | null };

export const spreadOf = (values: readonly number[]): Spread => {
  const at = (value: number | null) => (value === null ? null : round(value, 2));
  return { median: at(median(values)), p90: at(percentile(values, 90)), max: at(values.length > 0 ? Math.max(...values) : null) };
};

export type RecogniserCpu = {
  /** Publisher spawn → the recogniser first seen among the server's processes. */
  spawnToRecogniserMs: number;
  /** Its CPU seconds at its last sighting before it exited (model loading included). */
  recogniserCpuSeconds: number;
  /** The `cat` between the packager's pipe and the recogniser; null if never seen. */
  feederCpuSeconds: number | null;
  /** Recogniser + cat ÷ the seconds of audio published. */
  cpuPerAudioSecond: number | null;
  /** It exited within the wait after the publisher stopped (else the figures stop at its last sighting). */
  exited: boolean;
};

export type LiveCaptionsMeasurement = {
  /** When the publisher sent media time 0 − its spawn (start-up and RTMP connect); null without its progress reports (the spawn is used instead). */
  originMinusSpawnMs: number | null;
  /** The first segment's X-TIMESTAMP-MAP: the connection's first media time, on which cue times start. */
  mpegtsSeconds: number | null;
  /** Media seconds the publisher sent before it stopped: the audio the recogniser was given. */
  audioSeconds: number;
  segmentsListed: number;
  cues: number;
  lateCues: number;
  /** Listed only once the publisher stopped: in the transcript, not in the latency figures. */
  cuesAfterStop: number;
  fromEndSeconds: Spread;
  fromStartSeconds: Spread;
  wer: WordErrorRate;
  transcript: string;
  recogniser: RecogniserCpu | null;
  /** Playlist or segment requests that failed. */
  fetchErrors: number;
  cueTimings: CueTiming[];
};

export type LiveCaptionsRun = {
  latencyMode: LatencyMode;
  segmentSeconds: number;
  measured: LiveCaptionsMeasurement | null;
  error: string | null;
};

export type LiveCaptionsResult = {
  clip: { voice: string; durationSeconds: number; silence: { start: number; end: number }; trailingSilenceSeconds: number; reference: string };
  pollMs: number;
  listenAfterSpeechSeconds: number;
  runs: LiveCaptionsRun[];
};

/**
 * The publisher's file: the input's picture (copied: its 1 s keyframe interval is what reduced
 * latency cuts at) with the speech as its sound, padded with silence.
 */
const makeCaptionsInput = async ({ input, workDir }: { input: LiveInput; workDir: string }): Promise<{ path: string; clip: SpeechClip }> => {
  const dir = path.join(workDir, 'live', 'captions');
  mkdirSync(dir, { recursive: true });
  let clip: SpeechClip;
  try {
    clip = await makeSpeechClip({ voice: 'festival-hts', outputPath: path.join(dir, 'speech.m4a'), video: false });
  } catch (error) {
    throw new Error(`making the speech failed: ${errorMessage(error)} (npm run setup:system -- speech-synthesis)`);
  }
  const output = path.join(dir, `speech-${input.label}.mp4`);
  const made = await runCommand(
    'ffmpeg',
    [
      '-hide_banner', '-nostdin', '-v', 'error', '-y',
      '-i', input.path, '-i', clip.path,
      '-map', '0:v', '-map', '1:a',
      '-c:v', 'copy',
      '-af', 'apad', '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '48000',
      '-t', (clip.durationSeconds + TRAILING_SILENCE_SECONDS).toFixed(3),
      '-movflags', '+faststart',
      output,
    ],
    { timeoutMs: 120_000 },
  );
  if (made.code !== 0) throw new Error(`making the captions publisher input failed: ${made.stderr.slice(-500)}`);
  return { path: output, clip };
};

const isRecogniser = (entry: ProcessEntry) => /(^|\/)pocketsphinx_continuous$/.test(entry.argv[0] ?? '');
const isCat = (entry: ProcessEntry) => /(^|\/)cat$/.test(entry.argv[0] ?? '');

/** The broadcast's recogniser and the cat feeding it: siblings under the server's `sh -c 'cat | exec stdbuf -oL …'`. */
const findRecogniser = (serverPid: number, ignored: ReadonlySet<number>): { recogniser: number; feeder: number | null } | null => {
  const processes = descendantsOf(serverPid);
  const recogniser = processes.find((entry) => isRecogniser(entry) && !ignored.has(entry.pid));
  if (!recogniser) return null;
  return { recogniser: recogniser.pid, feeder: processes.find((entry) => isCat(entry) && entry.ppid === recogniser.ppid)?.pid ?? null };
};

// Polled: the recogniser starts with the broadcast and exits after it, once it has answered for
// the last audio, so its last sighting holds (almost) all its CPU time. The process list is read
// only until both are found; then just their /proc/<pid>/stat. A recogniser already running (a
// previous broadcast's, still finishing after a failed run) is not this one.
const watchRecogniserCpu = (serverPid: number, spawnedAtMs: number) => {
  const earlier = new Set(descendantsOf(serverPid).filter(isRecogniser).map((entry) => entry.pid));
  let pids: { recogniser: number; feeder: number | null } | null = null;
  let firstSeenAtMs: number | null = null;
  let recogniserCpu: number | null = null;
  let feederCpu: number | null = null;
  let gone = false;
  let running = true;
  const loop = (async () => {
    while (running && !gone) {
      if (pids === null || pids.feeder === null) pids = findRecogniser(serverPid, earlier) ?? pids;
      if (pids) {
        firstSeenAtMs ??= Date.now();
        const cpu = cpuSecondsOf(pids.recogniser);
        if (cpu === null) gone = true;
        else recogniserCpu = cpu;
        if (pids.feeder !== null) feederCpu = cpuSecondsOf(pids.feeder) ?? feederCpu;
      }
      await sleep(RECOGNISER_POLL_MS);
    }
  })();
  return {
    /** Waits for the recogniser to exit (at most `timeoutMs`), then its CPU over `audioSeconds`. */
    stop: async (audioSeconds: number, timeoutMs: number): Promise<RecogniserCpu | null> => {
      const deadline = Date.now() + timeoutMs;
      while (!gone && Date.now() < deadline) await sleep(100);
      running = false;
      await loop;
      if (firstSeenAtMs === null || recogniserCpu === null) return null;
      const total = recogniserCpu + (feederCpu ?? 0);
      return {
        spawnToRecogniserMs: firstSeenAtMs - spawnedAtMs,
        recogniserCpuSeconds: round(recogniserCpu, 2),
        feederCpuSeconds: feederCpu === null ? null : round(feederCpu, 2),
        cpuPerAudioSecond: audioSeconds > 0 ? round(total / audioSeconds, 4) : null,
        exited: gone,
      };
    },
  };
};

/** The segments of the subtitles playlist, each with its URI (the line after its EXTINF). */
const playlistSegments = (url: string, text: string) => {
  const uris = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  return parseMediaPlaylist(text).map((segment, index) => ({ ...segment, url: new URL(uris[index] ?? '', url).toString() }));
};

/** The subtitles playlist as it grows: every segment when first listed, with its cues. */
class SubtitlesListener {
  readonly segments: ListedSegment[] = [];
  fetchErrors = 0;
  private nextStartSeconds = 0;

  constructor(private readonly url: string) {}

  /** Polls until `untilMs`; stops early once the playlist has ended (or, after the stop, is gone). */
  async listenUntil(untilMs: number, { afterStop }: { afterStop: boolean }): Promise<void> {
    while (Date.now() < untilMs) {
      const started = Date.now();
      const answer = await fetchText(this.url);
      const listedAtMs = Date.now();
      if (answer.status !== 200) {
        if (afterStop) return;
        this.fetchErrors += 1;
      } else {
        await this.takeNew(answer.text, listedAtMs, afterStop);
        if (answer.text.includes('#EXT-X-ENDLIST')) return;
      }
      await sleep(Math.max(0, PLAYLIST_POLL_MS - (Date.now() - started)));
    }
  }

  private async takeNew(text: string, listedAtMs: number, afterStop: boolean): Promise<void> {
    const known = new Set(this.segments.map((segment) => segment.msn));
    for (const segment of playlistSegments(this.url, text)) {
      if (known.has(segment.msn)) continue;
      const vtt = await fetchText(segment.url);
      if (vtt.status !== 200) this.fetchErrors += 1;
      const parsed = vtt.status === 200 ? parseWebVtt(vtt.text) : { mpegtsSeconds: null, cues: [] };
      this.segments.push({ msn: segment.msn, startSeconds: this.nextStartSeconds, durationSeconds: segment.durationSeconds, listedAtMs, afterStop, ...parsed });
      this.nextStartSeconds += segment.durationSeconds;
    }
  }
}

/** When the publisher sent media time 0: the earliest `report time − media time` of its progress reports (read after written, never before). */
const mediaOriginOf = (publisher: LivePublisher): number | null => {
  const origins = publisher.progress.filter((sample) => sample.outSeconds > 0).map((sample) => sample.atMs - sample.outSeconds * 1000);
  return origins.length > 0 ? Math.min(...origins) : null;
};

const summarize = ({
  listener,
  spawnedAtMs,
  originMs,
  audioSeconds,
  recogniser,
  clip,
}: {
  listener: SubtitlesListener;
  spawnedAtMs: number;
  originMs: number | null;
  audioSeconds: number;
  recogniser: RecogniserCpu | null;
  clip: SpeechClip;
}): LiveCaptionsMeasurement => {
  const timings = cueTimings(listener.segments, originMs ?? spawnedAtMs);
  const listedLive = timings.filter((timing) => !timing.afterStop);
  const transcript = timings.map((timing) => timing.text).join(' ');
  return {
    originMinusSpawnMs: originMs === null ? null : Math.round(originMs - spawnedAtMs),
    mpegtsSeconds: listener.segments[0]?.mpegtsSeconds ?? null,
    audioSeconds: round(audioSeconds, 2),
    segmentsListed: listener.segments.length,
    cues: timings.length,
    lateCues: timings.filter((timing) => timing.late).length,
    cuesAfterStop: timings.length - listedLive.length,
    fromEndSeconds: spreadOf(listedLive.map((timing) => timing.fromEndSeconds)),
    fromStartSeconds: spreadOf(listedLive.map((timing) => timing.fromStartSeconds)),
    wer: wordErrorRate(clip.reference, transcript),
    transcript,
    recogniser,
    fetchErrors: listener.fetchErrors,
    cueTimings: timings,
  };
};

const measureMode = async ({
  server,
  token,
  rtmpPort,
  inputPath,
  clip,
  latencyMode,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  rtmpPort: number;
  inputPath: string;
  clip: SpeechClip;
  latencyMode: LatencyMode;
}): Promise<LiveCaptionsMeasurement> => {
  if (server.pid === undefined) throw new Error('the server has no pid to find its recogniser by');
  const stream: BenchLiveStream = await createLiveStream(server.baseUrl, token, latencyMode, undefined, { generatedSubtitles: [SUBTITLES] });
  const publisher = startLivePublisher({ inputPath, ingestUrl: rtmpUrlOf(rtmpPort, stream) });
  const recogniser = watchRecogniserCpu(server.pid, publisher.startedAtMs);
  try {
    const multivariantUrl = multivariantUrlOf(server.baseUrl, stream);
    const playable = await waitForPlayable({ multivariantUrl, startedAtMs: publisher.startedAtMs, timeoutMs: 30_000 });
    const captionsUrl = subtitlesPlaylistUrl(multivariantUrl, playable.multivariant);
    if (captionsUrl === null) throw new Error(`the live multivariant playlist has no subtitles rendition: ${playable.multivariant.slice(0, 500)}`);
    const listener = new SubtitlesListener(captionsUrl);
    // From the spawn, which comes before media time 0: the publisher stops short of the file's end.
    await listener.listenUntil(publisher.startedAtMs + (clip.durationSeconds + LISTEN_AFTER_SPEECH_SECONDS) * 1000, { afterStop: false });
    const stoppedAtMs = Date.now();
    await publisher.stop();
    await listener.listenUntil(Date.now() + LISTEN_AFTER_STOP_MS, { afterStop: true });
    const originMs = mediaOriginOf(publisher);
    const audioSeconds = (stoppedAtMs - (originMs ?? publisher.startedAtMs)) / 1000;
    const cpu = await recogniser.stop(audioSeconds, RECOGNISER_EXIT_TIMEOUT_MS);
    return summarize({ listener, spawnedAtMs: publisher.startedAtMs, originMs, audioSeconds, recogniser: cpu, clip });
  } catch (error) {
    throw new Error(redactKeys(`${errorMessage(error)}; publisher: ${publisher.stderr().slice(-300)}`, [stream]));
  } finally {
    await publisher.stop();
    await recogniser.stop(0, 0);
    await waitForNoPackagers(server.pid);
  }
};

export const measureLiveCaptions = async ({
  server,
  token,
  rtmpPort,
  input,
  workDir,
  log,
}: LiveCaseContext & {
  workDir: string;
}): Promise<LiveCaptionsResult> => {
  const { path: inputPath, clip } = await makeCaptionsInput({ input, workDir });
  log(`live captions: ${round(clip.durationSeconds, 1)} s of festival speech (silence ${round(clip.silence.start, 1)}–${round(clip.silence.end, 1)} s) as the sound of the ${input.label} input`);
  const runs: LiveCaptionsRun[] = [];
  for (const latencyMode of LIVE_CAPTIONS_MODES) {
    const described = { latencyMode, segmentSeconds: LATENCY_PROFILES[latencyMode].segmentSeconds };
    log(`live captions: ${latencyMode}: publishing the speech, the subtitles playlist polled every ${PLAYLIST_POLL_MS} ms…`);
    try {
      const measured = await measureMode({ server, token, rtmpPort, inputPath, clip, latencyMode });
      runs.push({ ...described, measured, error: null });
      const { fromEndSeconds: end, fromStartSeconds: start } = measured;
      log(
        `live captions: ${latencyMode}: ${measured.cues} cues (${measured.lateCues} late, ${measured.cuesAfterStop} after the stop); listed after the words' end ` +
          `median ${end.median} s, p90 ${end.p90} s, max ${end.max} s (after their start ${start.median} / ${start.p90} / ${start.max} s); WER ${round(measured.wer.rate * 100, 1)} %; ` +
          `recogniser ${measured.recogniser?.recogniserCpuSeconds ?? 'n/a'} CPU-s + cat ${measured.recogniser?.feederCpuSeconds ?? 'n/a'} for ${measured.audioSeconds} s of audio ` +
          `(${measured.recogniser?.cpuPerAudioSecond ?? 'n/a'} CPU-s/s)`,
      );
    } catch (error) {
      log(`live captions: ${latencyMode} failed: ${errorMessage(error)}`);
      runs.push({ ...described, measured: null, error: errorMessage(error) });
    }
  }
  return {
    clip: { voice: clip.voice, durationSeconds: round(clip.durationSeconds, 2), silence: { start: round(clip.silence.start, 2), end: round(clip.silence.end, 2) }, trailingSilenceSeconds: TRAILING_SILENCE_SECONDS, reference: clip.reference },
    pollMs: PLAYLIST_POLL_MS,
    listenAfterSpeechSeconds: LISTEN_AFTER_SPEECH_SECONDS,
    runs,
  };
};
