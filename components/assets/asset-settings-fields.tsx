'use client';

import { SelectField } from '../ui/field';
import type { MaxResolutionTier, NewAssetSettings, PlaybackPolicy, VideoQuality } from '../hooks/dashboard-types';

export const DEFAULT_ASSET_SETTINGS: NewAssetSettings = {
  video_quality: 'plus',
  max_resolution_tier: '1080p',
  playback_policies: ['public'],
};

// Tier, max resolution and playback policy: shared by "create from URL" and the upload settings.
// The server refuses a max resolution above 1080p with "basic" only ("plus" and "premium" allow
// 1440p and 2160p), and says so in the error the form shows.
export function AssetSettingsFields({
  value,
  onChange,
}: {
  value: NewAssetSettings;
  onChange: (value: NewAssetSettings) => void;
}) {
  return (
    <div className="grid gap-3 sm:grid-cols-3">
      <SelectField
        label="Video quality"
        value={value.video_quality}
        onChange={(event) => onChange({ ...value, video_quality: event.target.value as VideoQuality })}
      >
        <option value="basic">basic</option>
        <option value="plus">plus</option>
        <option value="premium">premium</option>
      </SelectField>
      <SelectField
        label="Max resolution"
        value={value.max_resolution_tier}
        onChange={(event) => onChange({ ...value, max_resolution_tier: event.target.value as MaxResolutionTier })}
      >
        <option value="1080p">1080p</option>
        <option value="1440p">1440p</option>
        <option value="2160p">2160p</option>
      </SelectField>
      <SelectField
        label="Playback policy"
        value={value.playback_policies[0] ?? 'public'}
        onChange={(event) => onChange({ ...value, playback_policies: [event.target.value as PlaybackPolicy] })}
      >
        <option value="public">public</option>
        <option value="signed">signed</option>
      </SelectField>
    </div>
  );
}
