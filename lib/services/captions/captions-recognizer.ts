import { getEnv } from '../../env';
import type { SpeechRecognizer } from '../../media/captions/speech-recognizer';
import { pocketsphinxRecognizer } from './pocketsphinx-recognizer';

/** The engine generated captions use: the one place to change to plug in another. */
export const captionsRecognizer = (): SpeechRecognizer => pocketsphinxRecognizer(getEnv().pocketsphinx);
