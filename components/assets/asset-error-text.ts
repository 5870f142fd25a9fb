import type { AssetJson } from '../hooks/dashboard-types';

const EXPLANATIONS: Record<string, string> = {
  download_failed: 'Keyframe could not download the input file.',
  invalid_input: 'The input is not a video or audio file Keyframe can read.',
};

// An errored asset's `errors` in plain words, followed by the API's own messages.
export const assetErrorText = (asset: AssetJson): { summary: string; details: string[] } | undefined => {
  if (asset.status !== 'errored' || !asset.errors) return undefined;
  return {
    summary: EXPLANATIONS[asset.errors.type] ?? `The asset failed (${asset.errors.type}).`,
    details: asset.errors.messages,
  };
};
