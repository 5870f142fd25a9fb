import type { AnimatedFormat } from '../../media/images/image-args';
import type { StillFormat } from '../../media/images/render-still';
import type { ImageParamSource } from '../../schemas/image-params';
import type { Cacheability, PlaybackAccess } from '../playback/resolve-playback';

/** What an image service hands to the HTTP layer: a stored file, or generated text. */
/** `lastModified`: the asset's ready time, the same on every node (see PlaybackFile). */
export type ImageFile = { path: string; format: StillFormat | AnimatedFormat; cacheability: Cacheability; lastModified: Date };
export type StoryboardText = { text: string; format: 'vtt' | 'json'; cacheability: Cacheability; lastModified: Date };

/** What every image URL asks for: the playback ID, its access, and the query's image parameters. */
export type ImageTargetRequest = { playbackId: string; query: ImageParamSource; access: PlaybackAccess };
export type ImageRequest<Format> = ImageTargetRequest & { format: Format };
