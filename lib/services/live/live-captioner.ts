import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { terminateThenKill } from '../../media/child-process-set';
import { buildPocketsphinxStreamArgs, PocketsphinxUtteranceReader, pocketsphinxModelFiles } from '../../media/captions/pocketsphinx';
import { SPEECH_BYTES_PER_SECOND } from '../../media/captions/speech-audio-args';
import type { RecognizedWord } from '../../media/captions/speech-recognizer';
import { TailBuffer } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';

// The recogniser of one connection's live audio: PocketSphinx (the engine of on-demand captions,
// see lib/services/captions) reading the packager's 16 kHz PCM feed from stdin and answering per
// utterance as the speaker pauses. Its stdout goes through `stdbuf -oL`, without which the C
// library holds its answers in a 4 KB buffer for many utterances; its stdin is a real pipe fed by
// `cat`, because Node's child stdio are sockets, which /dev/stdin cannot be opened on (ENXIO: the
// recogniser exited at once).
//
// The feed must never hold the packager back: ffmpeg blocks on a full pipe, and video would stall
// behind the captions. So the feed is always read; while the recogniser lags more than
// MAX_BACKLOG_SECONDS behind, audio is dropped (and the times after a drop are moved on by what
// was dropped); a recogniser that cannot start or dies leaves the feed drained, and the broadcast
// goes on without captions.

const MAX_BACKLOG_SECONDS = 10;
// $0 is the recogniser's binary, "$@" its arguments.
const RECOGNISER_COMMAND = 'cat | exec stdbuf -oL "$0" "$@"';
const STOP_GRACE_MS = 1_000;

export type LiveCaptionerOptions = {
  binary: string;
  modelDir: string;
  feed: Readable;
  /** Words of an utterance, times in seconds since the feed's first sample. */
  onUtterance(words: RecognizedWord[]): void;
  log: Logger;
};

export type LiveCaptioner = {
  /** Resolves when the recogniser has said all it will (its feed ended, or it failed). */
  readonly done: Promise<void>;
  stop(): void;
};

const modelMissing = async (modelDir: string): Promise<string | null> => {
  const model = pocketsphinxModelFiles(modelDir);
  for (const file of [`${model.acousticModel}/mdef`, model.languageModel, model.dictionary]) {
    if ((await stat(file).catch(() => null)) === null) return file;
  }
  return null;
};

/** Where dropped audio went: recogniser time → feed time. */
class DropLedger {
  private readonly drops: Array<{ atSeconds: number; seconds: number }> = [];
  private keptBytes = 0;
  private droppedSeconds = 0;

  kept(bytes: number): void {
    this.keptBytes += bytes;
  }

  dropped(bytes: number): void {
    const seconds = bytes / SPEECH_BYTES_PER_SECOND;
    this.drops.push({ atSeconds: this.keptBytes / SPEECH_BYTES_PER_SECOND, seconds });
    this.droppedSeconds += seconds;
  }

  get totalDroppedSeconds(): number {
    return this.droppedSeconds;
  }

  toFeedTime(seconds: number): number {
    let shifted = seconds;
    for (const drop of this.drops) if (drop.atSeconds <= seconds) shifted += drop.seconds;
    return shifted;
  }
}

export const startLiveCaptioner = ({ binary, modelDir, feed, onUtterance, log }: LiveCaptionerOptions): LiveCaptioner => {
  const drain = () => feed.on('data', () => undefined).resume();
  let child: ReturnType<typeof spawn> | null = null;
  let stopped = false;

  const done = (async () => {
    const missing = await modelMissing(modelDir);
    if (missing || stopped) {
      if (missing) log.warn({ missing }, 'live captions are off for this connection: the speech model is missing (install pocketsphinx-en-us)');
      drain();
      return;
    }
    const recogniser = spawn('/bin/sh', ['-c', RECOGNISER_COMMAND, binary, ...buildPocketsphinxStreamArgs({ modelDir })], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    child = recogniser;
    childProcesses().track(recogniser);
    const stderr = new TailBuffer(2048);
    recogniser.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    const ledger = new DropLedger();
    const reader = new PocketsphinxUtteranceReader();
    const deliver = (utterances: RecognizedWord[][]) => {
      for (const words of utterances) {
        onUtterance(words.map((word) => ({ word: word.word, start: ledger.toFeedTime(word.start), end: ledger.toFeedTime(word.end) })));
      }
    };
    recogniser.stdout?.on('data', (chunk: Buffer) => deliver(reader.push(chunk.toString('utf8'))));

    const input = recogniser.stdin!;
    let inputOpen = true;
    input.on('error', () => {
      inputOpen = false;
    });
    let droppedLogged = false;
    feed.on('data', (chunk: Buffer) => {
      if (!inputOpen) return;
      if (input.writableLength > MAX_BACKLOG_SECONDS * SPEECH_BYTES_PER_SECOND) {
        ledger.dropped(chunk.length);
        if (!droppedLogged) log.warn('the live captions recogniser is falling behind: audio is skipped (captions miss words)');
        droppedLogged = true;
        return;
      }
      ledger.kept(chunk.length);
      input.write(chunk);
    });
    feed.once('end', () => {
      if (inputOpen) input.end();
    });
    feed.once('error', () => {
      if (inputOpen) input.end();
    });

    const exitCode = await new Promise<number | null>((resolve) => {
      recogniser.once('close', (code) => resolve(code));
      recogniser.once('error', () => resolve(null));
    });
    inputOpen = false;
    drain();
    deliver(reader.end());
    if (exitCode !== 0 && !stopped) log.warn({ exitCode, stderr: stderr.toString().trim().slice(-500) }, 'the live captions recogniser stopped');
    if (ledger.totalDroppedSeconds > 0) log.warn({ droppedSeconds: Math.round(ledger.totalDroppedSeconds) }, 'live captions skipped audio the recogniser could not keep up with');
  })();

  return {
    done,
    stop: () => {
      stopped = true;
      if (child) terminateThenKill(child, STOP_GRACE_MS);
    },
  };
};
