// The env key Keyframe's own players give mux-embed. One Keyframe is one Data environment; the
// value only has to exist: mux-player turns Mux Data on for a `src` outside mux.com only with one.
export const KEYFRAME_ENV_KEY = 'keyframe';
