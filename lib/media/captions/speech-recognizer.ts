// The contract between the captions pipeline and a speech-to-text engine. The pipeline extracts
// one audio track as 16 kHz mono 16-bit WAV, asks the engine for the words it hears with their
// times, and makes the cues itself (caption-cues.ts); so a better engine replaces PocketSphinx by
// implementing this type and nothing else.

/** One recognised word; times in seconds from the start of the audio. */
export type RecognizedWord = { word: string; start: number; end: number };

export type SpeechRecognizer = {
  /** For logs and error messages. */
  name: string;
  /** Primary language subtags it transcribes (e.g. ['en']); requests in other languages are refused. */
  languages: readonly string[];
  transcribe: (request: { wavPath: string; signal: AbortSignal; timeoutMs: number }) => Promise<RecognizedWord[]>;
};

/**
 * The engine is not installed (binary or model missing): the track errors with this message,
 * which says what to install; retrying cannot help.
 */
export class SpeechEngineUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SpeechEngineUnavailableError';
  }
}
