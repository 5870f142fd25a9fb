import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { TestInfo } from '@playwright/test';
import { Api, expectApiError } from '../support/api';
import { describeLadder, expectedLadder, ladderDifferences, type EncodingTier, type ResolutionTier } from '../support/ladder';
import type { KeyframeServer } from '../support/keyframe-server';
import { sourceInfo, type SourceInfo } from '../support/media-probe';
import { SHARED_MEDIA_DIR } from '../support/paths';
import {
  createPlayableAsset,
  expect,
  loadMultivariant,
  multivariantUrl,
  pollMultivariant,
  test,
  type LoadedMultivariant,
  type PlayableAsset,
  type PlaybackFixtureName,
} from '../support/playback';
import { expectMultivariantShape, verifyAudioRendition, verifyVideoRendition, type RenditionReport } from '../support/playback-checks';
import { disposeKeyframe, startKeyframe } from '../support/test';

// Every source plays: the ladder in the multivariant playlist is exactly the one the contract
// promises for the source, and each rendition played (every video rung and the audio of the
// synthetic sources, the lowest and highest where another case plays the same rungs between; the
// lowest and highest rung and the audio of the real files), played by real
// ffmpeg from its playlist URL, decodes without errors, lasts as long as the source (±1 frame /
// ±25 ms), has the advertised RESOLUTION and the profile/level its CODECS attribute claims.

let server: KeyframeServer;
let api: Api;

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'playback-renditions' });
  api = new Api(server.baseUrl, await server.createToken());
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

type Settings = { tier?: EncodingTier; maxResolutionTier?: ResolutionTier };

const createSettings = ({ tier, maxResolutionTier }: Settings): Record<string, unknown> => ({
  ...(tier === 'baseline' && { video_quality: 'basic' }),
  ...(tier === 'premium' && { video_quality: 'premium' }),
  ...(maxResolutionTier && { max_resolution_tier: maxResolutionTier }),
});

// Assets are shared by the tests of this file (e.g. the query-modifier test reuses the 1080p one).
const assets = new Map<string, Promise<PlayableAsset>>();
const assetFor = (key: string, create: () => Promise<PlayableAsset>): Promise<PlayableAsset> => {
  let pending = assets.get(key);
  if (!pending) {
    pending = create();
    assets.set(key, pending);
    pending.catch(() => assets.delete(key));
  }
  return pending;
};

const rungsOf = (playlist: LoadedMultivariant) =>
  playlist.video.map((variant) => ({ name: variant.name, width: variant.resolution?.width ?? 0, height: variant.resolution?.height ?? 0 }));

const expectLadder = (playlist: LoadedMultivariant, source: SourceInfo, settings: Settings) => {
  const expected = source.video ? expectedLadder(source.video.width, source.video.height, settings) : [];
  const differences = ladderDifferences(rungsOf(playlist), expected);
  expect(
    differences,
    `ladder of ${playlist.url} for a ${source.video?.width}x${source.video?.height} source ${JSON.stringify(settings)}\n` +
      `expected: ${describeLadder(expected)}\nactual:   ${describeLadder(rungsOf(playlist))}\n${playlist.text}`,
  ).toEqual([]);
};

/**
 * Plays the renditions of the playlist (every video rung, or with `ends` its lowest and highest)
 * and the audio, and attaches a table of what was measured.
 */
const verifyRenditions = async (playlist: LoadedMultivariant, source: SourceInfo, testInfo: TestInfo, rungs: 'every' | 'ends' = 'every') => {
  const reports: RenditionReport[] = [];
  const byHeight = [...playlist.video].sort((a, b) => (a.resolution?.height ?? 0) - (b.resolution?.height ?? 0));
  const played = rungs === 'every' || byHeight.length <= 2 ? byHeight : [byHeight[0]!, byHeight[byHeight.length - 1]!];
  for (const variant of played) reports.push(await verifyVideoRendition(variant, source));
  const audioUrl = playlist.media.find((media) => media.attributes.TYPE === 'AUDIO')?.url ?? playlist.audioOnly[0]?.url;
  if (source.audioDurations.length > 0) {
    expect(audioUrl, `an audio rendition for a source with audio: ${playlist.url}\n${playlist.text}`).toBeTruthy();
  }
  if (audioUrl) reports.push(await verifyAudioRendition(audioUrl, source));
  await testInfo.attach('renditions.json', { body: JSON.stringify({ playlist: playlist.url, source, reports }, null, 2), contentType: 'application/json' });
  return reports;
};

type Case = {
  title: string;
  fixture: PlaybackFixtureName;
  settings: Settings;
  /** Rungs that appear only after a background encode: poll the playlist for them. */
  awaitRungs?: string[];
  timeoutMs?: number;
  /** Which rungs are played; 'ends' where the rungs between are made exactly as in another case. */
  play?: 'every' | 'ends';
};

const syntheticCases: Case[] = [
  { title: '1080p 6 s (plus, default tier) → 270p…1080p', fixture: 'landscape1080p6s', settings: {} },
  {
    title: '4K 3 s with max_resolution_tier 2160p → 270p…2160p once the background encodes finish',
    fixture: 'uhd2160p',
    settings: { maxResolutionTier: '2160p' },
    awaitRungs: ['1440p', '2160p'],
    // Two minutes of polling for the background rungs plus playing seven renditions of a 4K source.
    timeoutMs: 360_000,
  },
  { title: 'portrait via rotate=90 on 1280x720 → 720x1280 renditions', fixture: 'portraitRot90', settings: {} },
  { title: 'VFR (30 fps then 15 fps)', fixture: 'vfr', settings: {} },
  { title: 'odd size 853x479 → 270p, 360p and a 852x478 top rung', fixture: 'odd853x479', settings: {} },
  { title: 'audio-only M4A → a single mp4a.40.2 variant', fixture: 'audioOnly', settings: {} },
  { title: 'video only (no audio track) → no EXT-X-MEDIA, avc1 only', fixture: 'videoOnly', settings: {} },
  // The tier picks the rungs; each is made by the same filter chain as the default tier's 1080p case.
  { title: 'baseline (basic) 1080p → 360p…1080p only', fixture: 'landscape1080p6s', settings: { tier: 'baseline' }, play: 'ends' },
  { title: 'premium 1080p → the same 270p…1080p rungs as plus', fixture: 'landscape1080p6s', settings: { tier: 'premium' }, play: 'ends' },
];

test.describe('synthetic sources', () => {
  for (const sample of syntheticCases) {
    test(sample.title, async ({ playbackFixtures, playbackMedia }, testInfo) => {
      // Plays every rendition (so encodes every segment), after generating the fixture.
      test.setTimeout(sample.timeoutMs ?? 240_000);
      const sourcePath = await playbackFixtures.ensure(sample.fixture);
      const source = await sourceInfo(sourcePath);
      const { playbackId } = await assetFor(`${sample.fixture}:${JSON.stringify(sample.settings)}`, () =>
        createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file(sample.fixture)), createSettings(sample.settings)),
      );
      const url = multivariantUrl(server, playbackId);
      const playlist = sample.awaitRungs
        ? await pollMultivariant(url, (current) => sample.awaitRungs!.every((name) => current.video.some((variant) => variant.name === name)))
        : await loadMultivariant(url);

      expectMultivariantShape(playlist, { playbackId, hasVideo: !!source.video, hasAudio: source.audioDurations.length > 0 });
      expectLadder(playlist, source, sample.settings);
      if (sample.fixture === 'odd853x479') {
        expect(rungsOf(playlist).find((rung) => rung.name === '478p'), playlist.text).toEqual({ name: '478p', width: 852, height: 478 });
      }
      if (sample.fixture === 'portraitRot90') {
        expect(rungsOf(playlist).find((rung) => rung.name === '720p'), playlist.text).toEqual({ name: '720p', width: 720, height: 1280 });
      }
      await verifyRenditions(playlist, source, testInfo, sample.play);
    });
  }
});

test.describe('tier caps and playback modifiers', () => {
  test('a 1080p source with the default tier has no 1440p/2160p; ?max_resolution / ?min_resolution filter the ladder', async ({
    playbackFixtures,
    playbackMedia,
  }) => {
    const source = await sourceInfo(await playbackFixtures.ensure('landscape1080p6s'));
    const { playbackId } = await assetFor(`landscape1080p6s:${JSON.stringify({})}`, () =>
      createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('landscape1080p6s'))),
    );
    const full = await loadMultivariant(multivariantUrl(server, playbackId));
    const names = (playlist: LoadedMultivariant) => playlist.video.map((variant) => variant.name).sort((a, b) => parseInt(a) - parseInt(b));
    expect(names(full), full.text).toEqual(['270p', '360p', '540p', '720p', '1080p']);
    expect(names(full)).not.toContain('1440p');
    expect(names(full)).not.toContain('2160p');

    const capped = await loadMultivariant(multivariantUrl(server, playbackId, 'max_resolution=720p'));
    expect(names(capped), capped.text).toEqual(['270p', '360p', '540p', '720p']);
    const floored = await loadMultivariant(multivariantUrl(server, playbackId, 'min_resolution=540p'));
    expect(names(floored), floored.text).toEqual(['540p', '720p', '1080p']);
    const both = await loadMultivariant(multivariantUrl(server, playbackId, 'min_resolution=360p&max_resolution=720p'));
    expect(names(both), both.text).toEqual(['360p', '540p', '720p']);

    // The filtered playlists keep the same variant attributes and point at working renditions (but
    // for AVERAGE-BANDWIDTH, which appears as segments get encoded: each playlist warms one).
    const withoutAverage = ({ 'AVERAGE-BANDWIDTH': _average, ...attributes }: Record<string, string>) => attributes;
    for (const playlist of [capped, floored, both]) {
      expectMultivariantShape(playlist, { playbackId, hasVideo: true, hasAudio: true });
      for (const variant of playlist.video) {
        const original = full.video.find((candidate) => candidate.name === variant.name);
        expect(withoutAverage(variant.attributes), `${variant.name} in ${playlist.url}`).toEqual(original && withoutAverage(original.attributes));
      }
    }
    // And the rungs themselves still follow the table.
    expectLadder(full, source, {});
  });

  const cappedCases: Array<{ title: string; settings: Settings; expected: string[] }> = [
    { title: '4K source with the default tier → never above 1080p', settings: {}, expected: ['270p', '360p', '540p', '720p', '1080p'] },
    { title: '4K source, baseline (basic) → 360p…1080p, never above', settings: { tier: 'baseline' }, expected: ['360p', '540p', '720p', '1080p'] },
  ];
  for (const sample of cappedCases) {
    test(sample.title, async ({ playbackFixtures, playbackMedia }, testInfo) => {
      test.setTimeout(300_000);
      const source = await sourceInfo(await playbackFixtures.ensure('uhd2160p'));
      const { playbackId } = await assetFor(`uhd2160p:${JSON.stringify(sample.settings)}`, () =>
        createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('uhd2160p')), createSettings(sample.settings)),
      );
      const url = multivariantUrl(server, playbackId);
      const atReady = await loadMultivariant(url);
      expect(atReady.video.map((variant) => variant.name).sort((a, b) => parseInt(a) - parseInt(b)), atReady.text).toEqual(sample.expected);
      expectMultivariantShape(atReady, { playbackId, hasVideo: true, hasAudio: true });
      expectLadder(atReady, source, sample.settings);
      // The cap only picks the rungs; those between the ends are played for the 4K 2160p case.
      await verifyRenditions(atReady, source, testInfo, 'ends');
      // Playing everything took a while: still nothing above 1080p (no background 1440p/2160p).
      const later = await loadMultivariant(url);
      expect(later.video.map((variant) => variant.name).sort((a, b) => parseInt(a) - parseInt(b)), later.text).toEqual(sample.expected);
    });
  }
});

test('baseline with max_resolution_tier 2160p is refused, or delivered without anything above 1080p', async ({ playbackFixtures, playbackMedia }) => {
  // The contract only says baseline never goes above 1080p: refusing the combination (Mux-style
  // 400 invalid_parameters) and capping the ladder are both acceptable; serving 1440p/2160p is not.
  await playbackFixtures.ensure('uhd2160p');
  const response = await api.post('/video/v1/assets', {
    inputs: [{ url: playbackMedia.fileUrl(playbackFixtures.file('uhd2160p')) }],
    playback_policies: ['public'],
    video_quality: 'basic',
    max_resolution_tier: '2160p',
  });
  if (response.status === 400) {
    expectApiError(response, 400, 'invalid_parameters', /max_resolution_tier/);
    return;
  }
  expect(response.status, response.text).toBe(201);
  const asset = await api.waitForStatus(response.json.data.id, ['ready', 'errored'], 120_000);
  expect(asset.status).toBe('ready');
  const url = multivariantUrl(server, asset.playback_ids[0].id);
  const names = async () => (await loadMultivariant(url)).video.map((variant) => variant.name).sort((a, b) => parseInt(a) - parseInt(b));
  expect(await names()).toEqual(['360p', '540p', '720p', '1080p']);
  await new Promise((resolve) => setTimeout(resolve, 20_000)); // no background 1440p/2160p either
  expect(await names()).toEqual(['360p', '540p', '720p', '1080p']);
});

// --- real footage ---

const MEDIA_EXTENSIONS = new Set(['.mp4', '.mov', '.webm', '.m4a', '.mp3', '.mkv']);
const sharedFiles = (() => {
  try {
    return readdirSync(SHARED_MEDIA_DIR)
      .filter((name) => MEDIA_EXTENSIONS.has(path.extname(name).toLowerCase()))
      .sort();
  } catch {
    return [];
  }
})();

test.describe('shared media folder', () => {
  test('the shared media folder is present', () => {
    test.skip(sharedFiles.length === 0, `${SHARED_MEDIA_DIR} is not available on this machine`);
    expect(sharedFiles.length).toBeGreaterThan(0);
  });

  for (const file of sharedFiles) {
    test(file, async ({ playbackMedia }, testInfo) => {
      test.setTimeout(240_000);
      const source = await sourceInfo(path.join(SHARED_MEDIA_DIR, file));
      const { playbackId } = await assetFor(`shared:${file}`, () => createPlayableAsset(api, playbackMedia.fileUrl(file)));
      const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
      expectMultivariantShape(playlist, { playbackId, hasVideo: !!source.video, hasAudio: source.audioDurations.length > 0 });
      expectLadder(playlist, source, {});
      // What is particular to a real file (codec, rotation, HDR, variable frame rate, odd sizes)
      // shows at any rung; the rungs between, made by the same filter chain at other sizes, are
      // played for the synthetic sources above.
      await verifyRenditions(playlist, source, testInfo, 'ends');
    });
  }
});
