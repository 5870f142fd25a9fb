import { randomBytes } from 'node:crypto';
import type { AccessToken } from './bench-server';
import { completeLiveStream, rtmpUrlOf, srtUrlOf, type BenchLiveStream } from './live-api';
import { postSimulcastTarget, publishExpectingRefusal } from './live-hostile-acts';
import { sendRtmpJunk } from '../rtmp-junk';
import { startLivePublisher } from './live-processes';
import type { KeyframeProcess } from '../keyframe-process';
import { errorMessage, sleep } from '../stats';
import type { WebhookReceiver } from '../webhook-receiver';

// The hostile inputs of the live bench's hostile case, in turn, while the watched broadcast runs
// (live-hostile.ts watches it). Each is timed from the act to its answer: a refused publisher's
// exit (from its spawn, ffmpeg's own start-up of ~0.3 s included), the server closing a junk
// connection (from the junk), the API's answer, or a webhook's arrival (from the publisher's spawn).

export type HostileAct = {
  input: string;
  /** What a clear answer is. */
  expected: string;
  /** What came back; stream keys and passphrases redacted. */
  result: string;
  clear: boolean;
  /** The act → its answer; null when none came. */
  afterMs: number | null;
  /** When the act started, in seconds from the start of the watched window. */
  atSeconds: number;
};

type Answer = Pick<HostileAct, 'result' | 'clear' | 'afterMs'>;

// Between acts, so each one's effect on the broadcast (if any) stands apart in the timeline.
const PAUSE_MS = 2_000;
const WARNING_TIMEOUT_MS = 20_000;
const UNKNOWN_KEY = '00000000-0000-0000-0000-000000000000';
const WRONG_PASSPHRASE = 'not-the-passphrase-0123';

export const runHostileActs = async ({
  server,
  token,
  ports,
  inputPath,
  watched,
  idle,
  webhooks,
  redact,
  windowStartMs,
  log,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  ports: { rtmp: number; srt: number };
  inputPath: string;
  /** The broadcast being watched (live over RTMP). */
  watched: BenchLiveStream;
  /** An idle stream whose reconnect_slate_url is not an image. */
  idle: BenchLiveStream;
  webhooks: WebhookReceiver;
  redact: (text: string) => string;
  windowStartMs: number;
  log: (line: string) => void;
}): Promise<HostileAct[]> => {
  const refused = (ingestUrl: string) => async (): Promise<Answer> => {
    const answer = await publishExpectingRefusal({ inputPath, ingestUrl, redact });
    const result = answer.refused ? `refused, ffmpeg exit ${answer.exitCode}: ${answer.said}` : answer.exitCode === null ? `still publishing after 15 s: ${answer.said}` : `ffmpeg exit 0: ${answer.said}`;
    return { result, clear: answer.refused, afterMs: answer.refused ? answer.afterMs : null };
  };

  const junk = (bytes: Buffer, handshake: boolean) => async (): Promise<Answer> => {
    const actAtMs = Date.now();
    const answer = await sendRtmpJunk({ port: ports.rtmp, junk: bytes, handshake });
    const logged = server.findLogRecords({ msg: 'rtmp protocol error' }).find((record) => typeof record.time === 'number' && record.time >= actAtMs);
    const said = logged ? `; server warned "rtmp protocol error: ${String(logged.error)}"` : '; nothing logged at warn';
    const handshook = handshake ? (answer.handshakeAnswered ? 'handshake answered, ' : 'handshake not answered, ') : '';
    return answer.closedAfterMs === null
      ? { result: `${handshook}connection still open 15 s after the junk${said}`, clear: false, afterMs: null }
      : { result: `${handshook}connection closed by the server${said}`, clear: true, afterMs: answer.closedAfterMs };
  };

  const malformed = (url: string) => async (): Promise<Answer> => {
    const answer = await postSimulcastTarget(server.baseUrl, token, idle, { url, stream_key: 'key' });
    const clear = answer.status === 400 && answer.errorType === 'invalid_parameters' && answer.messages.length > 0;
    return { result: `${answer.status} ${answer.errorType ?? '(no error type)'}: ${answer.messages.join('; ') || '(no messages)'}`, clear, afterMs: answer.afterMs };
  };

  const slateNotAnImage = async (): Promise<Answer> => {
    const publisher = startLivePublisher({ inputPath, ingestUrl: rtmpUrlOf(ports.rtmp, idle) });
    try {
      const find = () => webhooks.received.find((entry) => entry.event?.type === 'video.live_stream.warning' && entry.event?.object?.id === idle.id);
      while (!find() && Date.now() < publisher.startedAtMs + WARNING_TIMEOUT_MS) await sleep(20);
      const warning = find();
      if (!warning) return { result: `no video.live_stream.warning within ${WARNING_TIMEOUT_MS / 1000} s`, clear: false, afterMs: null };
      const data = (warning.event?.data as { warning?: { type?: string; message?: string } } | undefined)?.warning;
      return { result: `video.live_stream.warning ${data?.type}: "${data?.message}"`, clear: true, afterMs: warning.receivedAt - publisher.startedAtMs };
    } finally {
      // Ended through the API before its publisher stops, so its reconnect window shows no slate.
      await completeLiveStream(server.baseUrl, token, idle).catch(() => undefined);
      await publisher.stop();
    }
  };

  const acts: Array<{ input: string; expected: string; run: () => Promise<Answer> }> = [
    { input: 'SRT caller, unknown stream key', expected: 'refused at connect', run: refused(srtUrlOf(ports.srt, { ...idle, streamKey: UNKNOWN_KEY })) },
    { input: "SRT caller, an idle stream's key with a wrong passphrase", expected: 'refused at connect', run: refused(srtUrlOf(ports.srt, { ...idle, srtPassphrase: WRONG_PASSPHRASE })) },
    { input: "SRT caller, the watched stream's key with a wrong passphrase", expected: 'refused at connect', run: refused(srtUrlOf(ports.srt, { ...watched, srtPassphrase: WRONG_PASSPHRASE })) },
    { input: "RTMP, a second publisher on the watched stream's key", expected: 'refused at connect', run: refused(rtmpUrlOf(ports.rtmp, watched)) },
    { input: 'RTMP port, 8 KiB of random bytes instead of a handshake', expected: 'connection closed', run: junk(randomBytes(8 * 1024), false) },
    { input: 'RTMP port, the handshake then 64 KiB of random bytes', expected: 'connection closed', run: junk(randomBytes(64 * 1024), true) },
    { input: 'POST simulcast target, url https://live.example.com/app', expected: "400 in Mux's error shape", run: malformed('https://live.example.com/app') },
    { input: 'POST simulcast target, url rtmp:///app (no host)', expected: "400 in Mux's error shape", run: malformed('rtmp:///app') },
    { input: 'POST simulcast target, url "not a url"', expected: "400 in Mux's error shape", run: malformed('not a url') },
    { input: 'reconnect_slate_url serving text/html, its stream published', expected: 'video.live_stream.warning', run: slateNotAnImage },
  ];
  const done: HostileAct[] = [];
  for (const [index, act] of acts.entries()) {
    if (index > 0) await sleep(PAUSE_MS);
    const atMs = Date.now();
    let answer: Answer;
    try {
      answer = await act.run();
    } catch (error) {
      answer = { result: `the act itself failed: ${redact(errorMessage(error))}`, clear: false, afterMs: null };
    }
    done.push({ input: act.input, expected: act.expected, ...answer, atSeconds: Math.round((atMs - windowStartMs) / 100) / 10 });
    log(`live hostile: ${act.input}: ${answer.result}${answer.afterMs === null ? '' : ` (${answer.afterMs} ms)`}`);
  }
  return done;
};
