'use client';

import { errorMessages } from '../hooks/api-fetch';
import type { QualityReportJson, RungQuality } from '../hooks/dashboard-types';
import { useMeasureQuality, useQualityReport } from '../hooks/use-quality-report';
import { Button } from '../ui/button';
import { useToast } from '../ui/toast';

const megabits = (bitsPerSecond: number) => `${(bitsPerSecond / 1_000_000).toFixed(2)} Mb/s`;

// Spent against the rung's target: under 100 % the content needed fewer bits than the ladder allows.
const share = ({ average_bitrate, target_bitrate }: RungQuality) => `${Math.round((average_bitrate / target_bitrate) * 100)} %`;

function QualityTable({ report }: { report: QualityReportJson }) {
  return (
    <div className="overflow-x-auto rounded-md border border-zinc-200 bg-white">
      <table className="w-full text-left text-sm" data-testid="quality-table">
        <caption className="sr-only">Quality per rendition</caption>
        <thead className="bg-zinc-50 text-xs text-zinc-600">
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">Rendition</th>
            <th scope="col" className="px-3 py-2 font-medium">Bitrate spent</th>
            <th scope="col" className="px-3 py-2 font-medium">Peak segment</th>
            <th scope="col" className="px-3 py-2 font-medium">SSIM</th>
            <th scope="col" className="px-3 py-2 font-medium">PSNR</th>
          </tr>
        </thead>
        <tbody>
          {report.rungs.map((rung) => (
            <tr key={rung.name} className="border-t border-zinc-100" data-rung={rung.name}>
              <th scope="row" className="px-3 py-2 font-medium">
                {rung.name} <span className="font-normal text-zinc-500">{rung.width}×{rung.height}</span>
              </th>
              <td className="px-3 py-2">
                {megabits(rung.average_bitrate)} <span className="text-zinc-500">({share(rung)} of {megabits(rung.target_bitrate)})</span>
              </td>
              <td className="px-3 py-2">{megabits(rung.peak_segment_bitrate)}</td>
              <td className="px-3 py-2">{rung.ssim.toFixed(4)}</td>
              <td className="px-3 py-2">{rung.psnr.toFixed(1)} dB</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// The quality report: measured when asked for, on sampled segments, in the encoders' idle time.
export function QualityReportPanel({ assetId, ready }: { assetId: string; ready: boolean }) {
  const report = useQualityReport(assetId, ready);
  const measure = useMeasureQuality(assetId);
  const toast = useToast();
  const status = report.data?.status;
  const start = () => measure.mutate(undefined, { onError: (error) => toast('error', errorMessages(error).join(' ')) });

  return (
    <section aria-labelledby="quality-heading" className="space-y-2" data-testid="quality-report">
      <h2 id="quality-heading" className="text-lg font-semibold">
        Quality
      </h2>
      <p className="text-sm text-zinc-600">
        Per rendition, the bitrate its first, middle and last segments spent and how close they are to the source (SSIM, PSNR),
        measured when the encoders are otherwise idle.
      </p>
      {!ready ? (
        <p className="text-sm text-zinc-600">Available once the asset is ready.</p>
      ) : report.isPending ? (
        <p className="text-sm text-zinc-600">Loading…</p>
      ) : report.isError ? (
        <p className="text-sm text-red-700">The quality report could not be loaded.</p>
      ) : (
        <>
          {status === 'measuring' && (
            <p className="text-sm text-zinc-600" role="status">
              Measuring…
            </p>
          )}
          {status === 'errored' && <p className="text-sm text-red-700">{report.data.error}</p>}
          {status === 'ready' && (
            <>
              <QualityTable report={report.data} />
              <p className="text-xs text-zinc-500">Measured {new Date(report.data.measured_at!).toLocaleString()}.</p>
            </>
          )}
          {status !== 'measuring' && (
            <Button variant="ghost" className="px-2 py-1 text-xs" disabled={measure.isPending} onClick={start}>
              {status === 'not_requested' ? 'Measure quality' : 'Measure again'}
            </Button>
          )}
        </>
      )}
    </section>
  );
}
