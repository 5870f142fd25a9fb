import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runSimulatedViewer, type ViewerReport } from '../../harness/simulated-viewer';
import { Api } from '../support/api';
import { decodeCheck, probeFrames } from '../support/media-probe';
import { createPlayableAsset, expect, multivariantUrl, test } from '../support/playback';
import type { KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, startKeyframe } from '../support/test';

// Just-in-time encoding under load, at a scale a test can afford: simulated viewers (the bench's
// load-phase viewer: player request order, 10 s startup buffer then real-time pace, the issue's
// ABR) on fresh assets while a burst of creates is ingested. Correctness only — every request
// answered, every viewer plays its asset to the end with every segment fetched, the segments
// decode, every created asset becomes ready; the numbers are `npm run bench -- --only load`.

const VIEWERS_PER_ASSET = 3;
const BURST = 20;
// Generous: the viewers stop as soon as they have everything; this only bounds a broken server.
const VIEWER_WALL_SECONDS = 120;

let server: KeyframeServer;
let api: Api;
let workDir: string;

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'load' });
  api = new Api(server.baseUrl, await server.createToken());
  workDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-load-'));
});

test.afterAll(async () => {
  await disposeKeyframe(server);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** init + segment decode without a single error, with frames (video) or samples (audio). */
const decodes = async (label: string, init: Buffer, segment: Buffer, stream: 'v:0' | 'a:0'): Promise<string | null> => {
  const file = path.join(workDir, `${label}.mp4`);
  await writeFile(file, Buffer.concat([init, segment]));
  const check = await decodeCheck(file);
  if (check.code !== 0 || check.stderr.trim() !== '') return `${label}: ffmpeg exited ${check.code}: ${check.stderr.trim().slice(0, 300)}`;
  const frames = (await probeFrames(file, { select: stream })).frames;
  return frames.length > 0 ? null : `${label}: no ${stream} frames`;
};

test('viewers on fresh assets during a burst of creates: no errors, every viewer plays to the end, every asset ready', async ({ playbackFixtures, playbackMedia }) => {
  const [viewedFile, burstFile] = await Promise.all([playbackFixtures.ensure('continuity720p'), playbackFixtures.ensure('landscape720p')]);
  const assets = await Promise.all([0, 1].map(() => createPlayableAsset(api, playbackMedia.fileUrl(path.basename(viewedFile)))));

  // Bodies are kept (a few MB per viewer) to decode a sample: each viewer's last video and audio segment.
  const viewers = assets.flatMap((asset, assetIndex) =>
    Array.from({ length: VIEWERS_PER_ASSET }, (_, viewer) =>
      runSimulatedViewer({
        multivariantUrl: multivariantUrl(server, asset.playbackId),
        wallSeconds: VIEWER_WALL_SECONDS,
        keep: () => true,
      }).then((report) => ({ label: `asset ${assetIndex} viewer ${viewer}`, report })),
    ),
  );
  const burstUrl = playbackMedia.fileUrl(path.basename(burstFile));
  const burst = Promise.all(
    Array.from({ length: BURST }, async () => {
      const created = await api.createAsset({ inputs: [{ url: burstUrl }], playback_policies: ['public'] });
      return api.waitForStatus(created.id, ['ready', 'errored'], 150_000);
    }),
  );

  const played: Array<{ label: string; report: ViewerReport }> = await Promise.all(viewers);
  for (const { label, report } of played) {
    expect.soft(report.errors.map((fetch) => `${fetch.kind} ${fetch.url} → ${fetch.status || fetch.error}`), `${label}: HTTP errors`).toEqual([]);
    expect.soft(report.fetchedEverything, `${label}: fetched every segment`).toBe(true);
    expect.soft(report.reachedEnd, `${label}: reached the end (at ${report.reachedSeconds} of ${report.durationSeconds} s)`).toBe(true);
    // Every video segment once (on whatever rung), every audio segment once, in order.
    const video = report.fetches.filter((fetch) => fetch.kind === 'video' && fetch.status === 200).map((fetch) => fetch.index);
    const audio = report.fetches.filter((fetch) => fetch.kind === 'audio' && fetch.status === 200).map((fetch) => fetch.index);
    expect.soft(video, `${label}: video segments in order`).toEqual([...video.keys()]);
    expect.soft(audio, `${label}: audio segments in order`).toEqual([...audio.keys()]);
    expect.soft(video.length, `${label}: video segments of a 16 s asset (2, 2, then 4 s)`).toBe(5);
    expect.soft(audio.length, `${label}: audio segments of a 16 s asset`).toBe(4);
    expect.soft(Object.values(report.segmentsByRung).reduce((sum, count) => sum + count, 0)).toBe(video.length);

    const initOf = (rendition: string) => report.kept.find((kept) => kept.kind === 'init' && kept.rendition === rendition)?.body;
    const lastVideoSegment = report.kept.findLast((kept) => kept.kind === 'video');
    const audioSegment = report.kept.findLast((kept) => kept.kind === 'audio');
    expect.soft(lastVideoSegment?.index, `${label}: kept the last video segment`).toBe(video.length - 1);
    expect.soft(audioSegment?.index, `${label}: kept the last audio segment`).toBe(audio.length - 1);
    const videoInit = lastVideoSegment && initOf(lastVideoSegment.rendition);
    const audioInit = initOf('audio');
    if (lastVideoSegment && videoInit) {
      expect.soft(await decodes(`${label} ${lastVideoSegment.rendition} ${lastVideoSegment.index}`.replace(/ /g, '-'), videoInit, lastVideoSegment.body, 'v:0')).toBeNull();
    }
    if (audioSegment && audioInit) {
      expect.soft(await decodes(`${label} audio ${audioSegment.index}`.replace(/ /g, '-'), audioInit, audioSegment.body, 'a:0')).toBeNull();
    }
  }
  test.info().annotations.push({
    type: 'viewers',
    description: played
      .map(({ label, report }) => `${label}: ${Object.entries(report.segmentsByRung).map(([rung, count]) => `${rung}×${count}`).join(' ')}, ${report.stalls} stall(s)`)
      .join('; '),
  });

  const settled = await burst;
  expect(settled.map((asset) => `${asset.id} ${asset.status} ${JSON.stringify(asset.errors ?? null)}`).filter((line) => !line.includes(' ready '))).toEqual([]);
  expect(settled).toHaveLength(BURST);
});
