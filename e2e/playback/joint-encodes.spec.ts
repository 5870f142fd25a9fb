import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { ffprobe } from '../support/media-probe';
import { createPlayableAsset, expect, test } from '../support/playback';
import { disposeKeyframe, restartKeyframe, startKeyframe } from '../support/test';

// Decode once, encode every rung wanted: when one segment is wanted in several rungs, one ffmpeg
// run decodes the source window once and encodes each of them. Here the one encoder is kept busy by
// a viewer of another asset while three viewers (three players, told apart by their User-Agent) ask
// for segment 3 of this one in three rungs; when the encoder frees up, the three are made by one
// run. (Before any encode has been measured, only the first viewer is promised real time, so the
// three wait alike and none is kept waiting for the others' rungs.) Each rung's bytes must be those
// a run of its own makes: the server is restarted with the encoded files deleted, each segment is
// encoded again alone, and the two copies compared.

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const RUNGS = ['270p', '360p', '540p'];
const INDEX = 3;

type Segments = Map<string, string>;
type LogRecord = Record<string, unknown>;

// The 'segment encoded' lines of segment INDEX that name the rungs of a joint run.
const jointRecords = (server: KeyframeServer): LogRecord[] =>
  ('findLogRecords' in server ? server.findLogRecords({ msg: 'segment encoded' }) : []).filter(
    (record: LogRecord) => record.index === INDEX && Array.isArray(record.together),
  );

// From the media playlists alone: a multivariant request would start encoding the start rung's
// first segment and count a viewer on it.
const segmentUrls = async (server: KeyframeServer, playbackId: string, rungs: readonly string[]): Promise<Map<string, string>> => {
  const urls = new Map<string, string>();
  for (const rung of rungs) {
    const playlistUrl = server.url(`/${playbackId}/${rung}.m3u8`);
    const response = await httpGet(playlistUrl);
    expect(response.status, `GET ${playlistUrl}`).toBe(200);
    const playlist = parseMediaPlaylist(response.text, playlistUrl);
    for (const [index, segment] of playlist.segments.entries()) urls.set(`${rung}/${index}`, segment.url);
  }
  return urls;
};

test.describe('joint encodes', () => {
  let server: KeyframeServer | undefined;
  test.afterAll(async () => disposeKeyframe(server));

  test('three rungs of one segment wanted at once come from one ffmpeg run, each byte-identical to its own encode', async ({ playbackFixtures, playbackMedia }, testInfo) => {
    test.skip(isCluster(), 'reads one server process log and restarts it on its DATA_DIR');
    test.setTimeout(180_000);
    const env = { JIT_ENCODE_CONCURRENCY: '1', PREFETCH_SEGMENTS: '0', FILL_IDLE_ENCODERS: 'false', LOG_LEVEL: 'debug' };
    server = await startKeyframe({ label: 'joint-encodes', env });
    const api = new Api(server.baseUrl, await server.createToken());
    await playbackFixtures.ensure('landscape720p');
    const input = playbackMedia.fileUrl(playbackFixtures.file('landscape720p'));
    const { assetId, playbackId } = await createPlayableAsset(api, input);
    const other = await createPlayableAsset(api, input);
    const urls = await segmentUrls(server, playbackId, RUNGS);
    const url = (key: string) => {
      const found = urls.get(key);
      if (!found) throw new Error(`no ${key} in ${[...urls.keys()].join(', ')}`);
      return found;
    };

    // The one encoder busy with a segment of the other asset; then the three viewers ask.
    const busyUrl = (await segmentUrls(server, other.playbackId, ['720p'])).get('720p/2')!;
    const busy = httpGet(busyUrl, { headers: { 'user-agent': 'busy-player' } });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const together = await Promise.all(RUNGS.map((rung, viewer) => httpGet(url(`${rung}/${INDEX}`), { headers: { 'user-agent': `player-${viewer}` } })));
    expect((await busy).status).toBe(200);
    for (const [position, response] of together.entries()) expect(response.status, `${RUNGS[position]}/${INDEX}: ${response.text.slice(0, 200)}`).toBe(200);

    const records = jointRecords(server);
    const runs = new Set(records.map((record) => JSON.stringify([...(record.together as string[])].sort())));
    await testInfo.attach('joint-records.json', { body: JSON.stringify(records, null, 2), contentType: 'application/json' });
    expect([...runs], 'one run made the three rungs of the segment').toEqual([JSON.stringify([...RUNGS].sort())]);
    expect(records.map((record) => record.rung).sort()).toEqual(RUNGS);

    const joint: Segments = new Map(together.map((response, position) => [RUNGS[position]!, sha256(response.body)]));
    // Each is a playable segment of its rung: its init and it decode to the rung's height.
    for (const rung of RUNGS) {
      const initUrl = url(`${rung}/${INDEX}`).replace(/\/\d+\.m4s(\?.*)?$/, '/init.mp4$1');
      const init = await httpGet(initUrl);
      expect(init.status).toBe(200);
      const file = testInfo.outputPath(`${rung}-${INDEX}.mp4`);
      writeFileSync(file, Buffer.concat([init.body, together[RUNGS.indexOf(rung)]!.body]));
      const probe = await ffprobe(['-v', 'error', '-select_streams', 'v:0', '-count_frames', '-show_entries', 'stream=width,height,nb_read_frames', '-of', 'json', file]);
      expect(probe.code, probe.stderr).toBe(0);
      const stream = (JSON.parse(probe.stdout) as { streams: Array<Record<string, unknown>> }).streams[0]!;
      expect(Math.min(Number(stream.width), Number(stream.height)), `${rung} height`).toBe(Number.parseInt(rung, 10));
      expect(Number(stream.nb_read_frames), `${rung} frames`).toBeGreaterThan(0);
    }

    // Encoded again, each alone, on a restarted server without the files.
    await server.stop();
    rmSync(path.join(server.assetDir(assetId), 'hls'), { recursive: true, force: true });
    server = await restartKeyframe(server, { env });
    const restarted = await segmentUrls(server, playbackId, RUNGS);
    const alone: Segments = new Map();
    for (const rung of RUNGS) {
      const response = await httpGet(restarted.get(`${rung}/${INDEX}`)!);
      expect(response.status, `${rung}/${INDEX} alone: ${response.text.slice(0, 300)}`).toBe(200);
      alone.set(rung, sha256(response.body));
    }
    expect(jointRecords(server), 'the second time, each rung is encoded alone').toEqual([]);
    expect(Object.fromEntries(joint), 'each rung of the joint run is byte-identical to its own encode').toEqual(Object.fromEntries(alone));
  });
});
