import { createHash } from 'node:crypto';

// A view's id in the Data API: 36 base62 characters, like Mux's. Derived from the player's
// view_id rather than random, so nodes that see the first beacons of one view at the same time
// agree on its id without asking each other.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const VIEW_ID_LENGTH = 36;

export const videoViewIdFor = (playerViewId: string): string => {
  const digest = createHash('sha512').update(`keyframe-video-view:${playerViewId}`).digest();
  let id = '';
  for (let index = 0; index < VIEW_ID_LENGTH; index += 1) id += ALPHABET[(digest[index] as number) % 62];
  return id;
};
