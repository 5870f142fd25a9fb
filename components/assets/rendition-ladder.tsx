'use client';

import type { RenditionJson } from '../hooks/dashboard-types';
import { useAssetRenditions } from '../hooks/use-asset-renditions';

// One cell per segment up to this many; longer assets show the share encoded per cell instead.
const MAX_CELLS = 120;

const describe = (rendition: RenditionJson): string => {
  if (rendition.name === 'audio') return 'Audio (AAC, encoded once in the background)';
  const size = rendition.width && rendition.height ? `${rendition.width}×${rendition.height}` : rendition.name;
  const kind = rendition.background ? ' · encoded in the background, listed when complete' : '';
  return `${size} · ${(rendition.bitrate / 1_000_000).toFixed(1)} Mb/s${kind}`;
};

function SegmentBar({ rendition }: { rendition: RenditionJson }) {
  const cells = Math.min(rendition.segment_count, MAX_CELLS);
  const perCell = rendition.segment_count / Math.max(cells, 1);
  const encoded = new Set(rendition.encoded_segments);
  return (
    <div className="flex h-3 w-full gap-px overflow-hidden rounded-sm bg-zinc-100" aria-hidden="true">
      {Array.from({ length: cells }, (_, cell) => {
        const first = Math.floor(cell * perCell);
        const last = Math.max(first, Math.floor((cell + 1) * perCell) - 1);
        let done = 0;
        for (let index = first; index <= last; index++) if (encoded.has(index)) done++;
        const share = done / (last - first + 1);
        return <div key={cell} className={`flex-1 ${share === 0 ? 'bg-zinc-200' : share === 1 ? 'bg-emerald-500' : 'bg-emerald-300'}`} />;
      })}
    </div>
  );
}

export function RenditionLadder({ assetId, ready }: { assetId: string; ready: boolean }) {
  const renditions = useAssetRenditions(assetId, ready);
  return (
    <section aria-labelledby="renditions-heading" className="space-y-2" data-testid="rendition-ladder">
      <h2 id="renditions-heading" className="text-lg font-semibold">
        Renditions
      </h2>
      <p className="text-sm text-zinc-600">
        Segments are encoded the first time a player asks for them (and a few ahead), then kept. Green: on disk.
      </p>
      {!ready ? (
        <p className="text-sm text-zinc-600">The ladder appears when the asset is ready.</p>
      ) : renditions.isPending ? (
        <p className="text-sm text-zinc-600">Loading…</p>
      ) : renditions.isError ? (
        <p className="text-sm text-red-700">The renditions could not be loaded.</p>
      ) : (
        <ul className="space-y-2 text-sm">
          {renditions.data.map((rendition) => (
            <li key={rendition.name} className="rounded-md border border-zinc-200 bg-white px-3 py-2" data-rendition={rendition.name}>
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                {/* An audio rendition is named after its track id: 50 characters with no break. */}
                <span className="min-w-0 font-medium break-all">{rendition.name}</span>
                <span className="text-xs text-zinc-600" data-testid="encoded-count">
                  {rendition.encoded_segments.length} of {rendition.segment_count} segments encoded
                  {rendition.listed ? '' : ' · not listed yet'}
                </span>
              </div>
              <p className="text-xs text-zinc-500">{describe(rendition)}</p>
              <SegmentBar rendition={rendition} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
