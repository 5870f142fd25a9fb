import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Rung } from '../../lib/media/hls/ladder';
import { median, round } from '../stats';
import { EASY_KINDS, ensureQualityContent, QUALITY_SECONDS, type ContentKind } from './quality-content';
import { measureContentQuality, type ContentQuality, type QualityVariant, type RungQuality } from './quality';

// `npm run bench -- --only quality`: today's rate control (capped CRF per tier) side by side with
// the fixed-average ladder it replaced, on five kinds of content, and one setting measured and not
// kept (B-frames). Writes results.json and results.md to the output folder.

const BEFORE = 'fixed average (before)';
const PLUS = 'plus (capped CRF)';
const PREMIUM = 'premium';
const B_FRAMES = 'plus + 3 B-frames (not kept)';
const SSIM_TOLERANCE = 0.002;
const EASY_SAVING = 0.3;
const COLD_TOLERANCE = 1.1;

// What every rung was before rate control adapted to the content: x264's average bitrate at the
// nominal rate, peak 1.5 × (a plan made then has exactly these rungs).
const fixedAverage = (rung: Rung): Rung => ({ ...rung, rateControl: undefined, maxBitrate: Math.round(rung.videoBitrate * 1.5) });
const withBFrames = (args: string[]) => args.map((arg, index) => (args[index - 1] === '-bf' ? '3' : arg));

export const QUALITY_VARIANTS: QualityVariant[] = [
  { name: BEFORE, rungsOf: (ladderOf) => ladderOf('smart').map(fixedAverage) },
  { name: PLUS, rungsOf: (ladderOf) => ladderOf('smart') },
  { name: PREMIUM, rungsOf: (ladderOf) => ladderOf('premium') },
  { name: B_FRAMES, rungsOf: (ladderOf) => ladderOf('smart'), changeArgs: withBFrames },
];

type Comparison = {
  kind: ContentKind;
  variant: string;
  /** Video bytes per viewer-minute over all rungs, against before (1 = the same). */
  bytesRatio: number;
  /** Per rung: bytes against before, and SSIM less before's. */
  rungs: { rung: string; bytesRatio: number; ssimDelta: number; psnrDelta: number; coldRatio: number }[];
  worstSsimDelta: number;
};

const total = (rungs: RungQuality[]) => rungs.reduce((sum, rung) => sum + rung.kbps, 0);

const compare = (content: ContentQuality, variant: string): Comparison | null => {
  const before = content.variants.find((entry) => entry.name === BEFORE)?.rungs;
  const after = content.variants.find((entry) => entry.name === variant)?.rungs;
  if (!before || !after) return null;
  const rungs = after.flatMap((rung) => {
    const old = before.find((entry) => entry.rung === rung.rung);
    return old
      ? [
          {
            rung: rung.rung,
            bytesRatio: round(rung.kbps / old.kbps, 3),
            ssimDelta: round(rung.ssim - old.ssim, 5),
            psnrDelta: round(rung.psnr - old.psnr, 2),
            coldRatio: round(rung.firstSegmentWallSeconds / old.firstSegmentWallSeconds, 3),
          },
        ]
      : [];
  });
  return {
    kind: content.kind,
    variant,
    bytesRatio: round(total(after) / total(before), 3),
    rungs,
    worstSsimDelta: Math.min(...rungs.map((rung) => rung.ssimDelta)),
  };
};

type Target = { name: string; met: boolean; detail: string };

const targetsOf = (contents: ContentQuality[], comparisons: Comparison[]): Target[] => {
  const plus = comparisons.filter((comparison) => comparison.variant === PLUS);
  const easy = plus.filter((comparison) => EASY_KINDS.includes(comparison.kind));
  const hard = plus.filter((comparison) => !EASY_KINDS.includes(comparison.kind));
  const describe = (list: Comparison[]) => list.map((entry) => `${entry.kind} ${entry.bytesRatio}× (worst ΔSSIM ${entry.worstSsimDelta})`).join('; ');
  const peaks = contents.flatMap((content) =>
    content.variants.flatMap((variant) =>
      variant.rungs.filter((rung) => rung.declaredPeakKbps !== null).map((rung) => ({ label: `${content.kind} ${variant.name} ${rung.rung}`, rung })),
    ),
  );
  const overPeak = peaks.filter(({ rung }) => rung.peakSegmentKbps > rung.declaredPeakKbps!);
  const coldRatios = plus.flatMap((comparison) => comparison.rungs.map((rung) => rung.coldRatio));
  const coldMedian = median(coldRatios) ?? Number.NaN;
  return [
    {
      name: `easy kinds: ≥ ${EASY_SAVING * 100} % fewer bytes, every rung within ${SSIM_TOLERANCE} SSIM`,
      met: easy.every((entry) => entry.bytesRatio <= 1 - EASY_SAVING && entry.worstSsimDelta >= -SSIM_TOLERANCE),
      detail: describe(easy),
    },
    {
      name: `hard kinds: never more bytes, every rung within ${SSIM_TOLERANCE} SSIM`,
      met: hard.every((entry) => entry.bytesRatio <= 1 && entry.worstSsimDelta >= -SSIM_TOLERANCE),
      detail: describe(hard),
    },
    {
      name: 'BANDWIDTH is a true peak: no segment above the declared peak',
      met: overPeak.length === 0,
      detail: overPeak.length === 0 ? `${peaks.length} rungs checked` : overPeak.map(({ label, rung }) => `${label}: ${rung.peakSegmentKbps} > ${rung.declaredPeakKbps}`).join('; '),
    },
    {
      name: `cold first segment within ${Math.round((COLD_TOLERANCE - 1) * 100)} % of before (median over rungs and kinds)`,
      met: coldMedian <= COLD_TOLERANCE,
      detail: `median ${round(coldMedian, 3)}× (${coldRatios.length} rungs)`,
    },
  ];
};

const renderMarkdown = (contents: ContentQuality[], comparisons: Comparison[], targets: Target[], startedAt: Date): string => {
  const lines = [
    '# Quality bench',
    '',
    `${startedAt.toISOString()}; the first ${QUALITY_SECONDS} s of each clip, every just-in-time rung up to 1080p, each segment encoded as the server does and scored against the encoder's own input picture.`,
    '',
    '## Targets',
    '',
    '| target | met | measured |',
    '|---|---|---|',
    ...targets.map((target) => `| ${target.name} | ${target.met ? 'yes' : '**no**'} | ${target.detail} |`),
    '',
    '## Bytes against the fixed-average ladder (all rungs)',
    '',
    '| content | variant | bytes | worst ΔSSIM | per rung (bytes ×, ΔSSIM, cold ×) |',
    '|---|---|---|---|---|',
    ...comparisons.map(
      (entry) =>
        `| ${entry.kind} | ${entry.variant} | ${entry.bytesRatio}× | ${entry.worstSsimDelta} | ${entry.rungs.map((rung) => `${rung.rung} ${rung.bytesRatio}×, ${rung.ssimDelta}, ${rung.coldRatio}×`).join('; ')} |`,
    ),
    '',
    '## Every rung',
    '',
    '| content | variant | rung | kb/s | peak segment kb/s | declared peak | SSIM | PSNR dB | cold first segment s | CPU-s per media s |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...contents.flatMap((content) =>
      content.variants.flatMap((variant) =>
        variant.rungs.map(
          (rung) =>
            `| ${content.kind} | ${variant.name} | ${rung.rung} | ${rung.kbps} | ${rung.peakSegmentKbps} | ${rung.declaredPeakKbps ?? `(maxrate ${rung.capKbps})`} | ${rung.ssim} | ${rung.psnr} | ${rung.firstSegmentWallSeconds} | ${rung.cpuPerMediaSecond} |`,
        ),
      ),
    ),
    '',
    '## Content',
    '',
    ...contents.map((content) => `- ${content.kind}: ${content.label} (${content.origin}; ${content.seconds} s, ${content.segments} segments)`),
    '',
  ];
  return lines.join('\n');
};

export const runQualityBench = async ({
  outDir,
  workDir,
  sharedMediaDir,
  log,
}: {
  outDir: string;
  workDir: string;
  sharedMediaDir: string;
  log: (line: string) => void;
}): Promise<number> => {
  const startedAt = new Date();
  const contents: ContentQuality[] = [];
  for (const content of await ensureQualityContent({ workDir, sharedMediaDir, log })) {
    contents.push(await measureContentQuality({ content, variants: QUALITY_VARIANTS, log }));
  }
  const comparisons = contents.flatMap((content) =>
    QUALITY_VARIANTS.filter((variant) => variant.name !== BEFORE).flatMap((variant) => compare(content, variant.name) ?? []),
  );
  const targets = targetsOf(contents, comparisons);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'results.json'), `${JSON.stringify({ startedAt: startedAt.toISOString(), seconds: QUALITY_SECONDS, targets, comparisons, contents }, null, 2)}\n`);
  const markdown = renderMarkdown(contents, comparisons, targets, startedAt);
  writeFileSync(path.join(outDir, 'results.md'), markdown);
  process.stdout.write(markdown);
  log(`wrote ${path.join(outDir, 'results.json')} and results.md`);
  return 0;
};
