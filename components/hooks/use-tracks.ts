'use client';

import { useQuery } from '@tanstack/react-query';
import { apiFetch } from './api-fetch';
import type { TrackJson } from './dashboard-types';
import { queryKeys } from './query-keys';
import { useAssetMutation } from './use-asset-mutations';

// The asset page's tracks panel. Each change refreshes the asset, whose polling then follows the
// tracks while they are prepared.

export type NewSubtitleTrack = { url: string; language_code: string; name?: string; closed_captions: boolean };
export type TrackChanges = { name?: string; language_code?: string; closed_captions?: boolean };

const tracksPath = (assetId: string) => `/api/dashboard/assets/${assetId}/tracks`;

export const useAddSubtitleTrack = (assetId: string) =>
  useAssetMutation(assetId, async (track: NewSubtitleTrack) =>
    (await apiFetch<{ data: TrackJson }>(tracksPath(assetId), { method: 'POST', body: { ...track, type: 'text', text_type: 'subtitles' } })).data,
  );

export const useGenerateCaptions = (assetId: string) =>
  useAssetMutation(assetId, async ({ audioTrackId, languageCode }: { audioTrackId: string; languageCode: string }) =>
    (
      await apiFetch<{ data: TrackJson[] }>(`${tracksPath(assetId)}/${audioTrackId}/generate-subtitles`, {
        method: 'POST',
        body: { generated_subtitles: [{ language_code: languageCode }] },
      })
    ).data,
  );

export const useUpdateTrack = (assetId: string) =>
  useAssetMutation(assetId, async ({ trackId, changes }: { trackId: string; changes: TrackChanges }) =>
    (await apiFetch<{ data: TrackJson }>(`${tracksPath(assetId)}/${trackId}`, { method: 'PATCH', body: changes })).data,
  );

export const useDeleteTrack = (assetId: string) =>
  useAssetMutation(assetId, (trackId: string) => apiFetch<void>(`${tracksPath(assetId)}/${trackId}`, { method: 'DELETE' }));

/** A ready text track's transcript, fetched when it is opened; it does not change while the track exists. */
export const useTrackTranscript = (assetId: string, trackId: string, enabled: boolean) =>
  useQuery({
    queryKey: queryKeys.trackTranscript(assetId, trackId),
    queryFn: async () => (await apiFetch<{ data: { text: string } }>(`${tracksPath(assetId)}/${trackId}/transcript`)).data.text,
    enabled,
    staleTime: Infinity,
  });

/** Where the asset page's "Download .vtt" link points (a dashboard route answering with an attachment). */
export const trackVttUrl = (assetId: string, trackId: string) => `${tracksPath(assetId)}/${trackId}/vtt`;
