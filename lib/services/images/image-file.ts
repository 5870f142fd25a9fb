import type { AnimatedFormat } from '../../media/images/image-args';
import type { StillFormat } from '../../media/images/render-still';
import type { CacheScope } from '../playback/resolve-playback';

/** What an image service hands to the HTTP layer: a stored file, or generated text. */
export type ImageFile = { path: string; format: StillFormat | AnimatedFormat; cacheScope: CacheScope };
export type StoryboardText = { text: string; format: 'vtt' | 'json'; cacheScope: CacheScope; lastModified: Date };
