import type { AnimatedFormat } from '../../media/images/image-args';
import type { StillFormat } from '../../media/images/render-still';
import type { Cacheability } from '../playback/resolve-playback';

/** What an image service hands to the HTTP layer: a stored file, or generated text. */
/** `lastModified`: the asset's ready time, the same on every node (see PlaybackFile). */
export type ImageFile = { path: string; format: StillFormat | AnimatedFormat; cacheability: Cacheability; lastModified: Date };
export type StoryboardText = { text: string; format: 'vtt' | 'json'; cacheability: Cacheability; lastModified: Date };
