// The audio rendition is encoded once, as one continuous AAC stream, so no segment boundary ever
// has encoder priming or a gap. ffmpeg cuts it into fragments of a fixed number of AAC frames
// (`-frag_duration` of 4 s rounds up to 188 frames of 1024 samples at 48 kHz), which makes every
// segment's duration known before the encoder has produced it.

export const AUDIO_SAMPLE_RATE = 48_000;
export const AAC_FRAME_SAMPLES = 1024;
export const AUDIO_FRAGMENT_MICROSECONDS = 4_000_000;
export const AAC_FRAMES_PER_SEGMENT = Math.ceil(
  (AUDIO_FRAGMENT_MICROSECONDS / 1e6) * (AUDIO_SAMPLE_RATE / AAC_FRAME_SAMPLES),
);
export const AUDIO_SEGMENT_SECONDS = (AAC_FRAMES_PER_SEGMENT * AAC_FRAME_SAMPLES) / AUDIO_SAMPLE_RATE;

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

export const buildAudioSegmentDurations = (duration: number): number[] => {
  const count = Math.max(1, Math.ceil(duration / AUDIO_SEGMENT_SECONDS - 1e-9));
  return Array.from({ length: count }, (_, index) =>
    round6(index < count - 1 ? AUDIO_SEGMENT_SECONDS : duration - AUDIO_SEGMENT_SECONDS * (count - 1)),
  );
};

export type AudioOutputChannels = 1 | 2;

/** Audio tracks are encoded in stereo, or in mono when the track is mono (5.1 is downmixed). */
export const audioOutputChannels = (sourceChannels: number | null | undefined): AudioOutputChannels => (sourceChannels === 1 ? 1 : 2);
