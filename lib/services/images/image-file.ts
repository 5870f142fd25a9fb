import type { AnimatedFormat } from '../../media/images/image-args';
import type { StillFormat } from '../../media/images/render-still';

/** What an image service hands to the HTTP layer: a stored file, or generated text. */
export type ImageFile = { path: string; format: StillFormat | AnimatedFormat };
export type StoryboardText = { text: string; format: 'vtt' | 'json' };
