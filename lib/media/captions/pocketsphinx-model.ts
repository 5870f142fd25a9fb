// A module of its own so the env module can default to it without loading the recognizer.
/** Where Debian's pocketsphinx-en-us puts the US English model. */
export const DEFAULT_POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
