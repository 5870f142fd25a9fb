'use client';

import { useQuery } from '@tanstack/react-query';
import { apiFetch } from '../hooks/api-fetch';
import { queryKeys } from '../hooks/query-keys';

export type AssetInputJson = {
  url?: string;
  start_time?: number;
  end_time?: number;
  overlay_settings?: Record<string, string>;
};

const OVERLAY_LABELS: [string, string][] = [
  ['vertical_align', 'Vertical'],
  ['vertical_margin', 'Vertical margin'],
  ['horizontal_align', 'Horizontal'],
  ['horizontal_margin', 'Horizontal margin'],
  ['width', 'Width'],
  ['height', 'Height'],
  ['opacity', 'Opacity'],
];

// The inputs as submitted: the video (or the asset a clip was cut from, with its range) and each
// watermark image with where it sits on the picture.
export function AssetInputs({ assetId }: { assetId: string }) {
  const inputs = useQuery({
    queryKey: queryKeys.assetInputs(assetId),
    queryFn: async () => (await apiFetch<{ data: AssetInputJson[] }>(`/api/dashboard/assets/${assetId}/inputs`)).data,
    staleTime: Infinity,
  });
  if (!inputs.data || inputs.data.length === 0) return null;
  return (
    <section aria-labelledby="inputs-heading" className="space-y-2">
      <h2 id="inputs-heading" className="text-lg font-semibold">
        Inputs
      </h2>
      <ul className="space-y-2 text-sm" data-testid="asset-inputs">
        {inputs.data.map((input, index) => (
          <li key={index} className="rounded-md border border-zinc-200 bg-white px-3 py-2">
            <span className="font-medium">{input.overlay_settings ? 'Watermark' : index === 0 ? 'Video' : 'Input'}</span>
            {input.url ? (
              <span className="block font-mono text-xs break-all text-zinc-600">{input.url}</span>
            ) : (
              index === 0 && <span className="block text-xs text-zinc-600">the uploaded file</span>
            )}
            {(input.start_time !== undefined || input.end_time !== undefined) && (
              <span className="block text-xs text-zinc-600">
                Clip from {input.start_time ?? 0} s to {input.end_time ?? 'the end'}
                {input.end_time !== undefined && ' s'}
              </span>
            )}
            {input.overlay_settings && (
              <dl className="mt-1 grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 text-xs">
                {OVERLAY_LABELS.filter(([key]) => input.overlay_settings?.[key] !== undefined).map(([key, label]) => (
                  <div key={key} className="contents">
                    <dt className="text-zinc-600">{label}</dt>
                    <dd>{input.overlay_settings?.[key]}</dd>
                  </div>
                ))}
              </dl>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
