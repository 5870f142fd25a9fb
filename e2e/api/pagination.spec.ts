import type Mux from '@mux/mux-node';
import { Api, expectApiError } from '../support/api';
import type { KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// GET /video/v1/assets on a dedicated server holding exactly 60 assets: both paging styles Mux
// clients use (cursor/next_cursor for mux-node ≥14, page numbers until an empty page for older
// SDKs) must visit every asset exactly once, newest first.

const ASSET_COUNT = 60;
const PAGE_SIZE = 7;

let server: KeyframeServer;
let api: Api;
let mux: Mux;
let createdIds: string[] = [];

test.beforeAll(async ({ media, fixtures }) => {
  test.setTimeout(120_000);
  server = await startKeyframe({ label: 'pagination' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token, { maxRetries: 0 });

  // The assets only need to exist, not to become ready; one small fixture URL for all of them.
  const url = media.fileUrl(fixtures.file('videoSmall'));
  createdIds = [];
  for (let batch = 0; batch < ASSET_COUNT / 10; batch += 1) {
    const assets = await Promise.all(Array.from({ length: 10 }, () => api.createAsset({ inputs: [{ url }] })));
    createdIds.push(...assets.map((asset) => asset.id as string));
  }
  expect(new Set(createdIds).size).toBe(ASSET_COUNT);
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

const expectEachCreatedIdOnce = (seen: string[]) => {
  const counts = new Map<string, number>();
  for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
  const duplicates = [...counts].filter(([, count]) => count > 1).map(([id]) => id);
  expect(duplicates, 'ids listed more than once').toEqual([]);
  expect([...counts.keys()].sort()).toEqual([...createdIds].sort());
};

const expectNewestFirst = (createdAts: string[]) => {
  const seconds = createdAts.map(Number);
  for (let index = 1; index < seconds.length; index += 1) {
    expect(seconds[index], `created_at at position ${index}`).toBeLessThanOrEqual(seconds[index - 1]!);
  }
};

test(`mux-node auto-pagination (limit ${PAGE_SIZE}) yields each of the ${ASSET_COUNT} assets exactly once`, async () => {
  const seen: string[] = [];
  const createdAts: string[] = [];
  for await (const asset of mux.video.assets.list({ limit: PAGE_SIZE })) {
    seen.push(asset.id);
    createdAts.push(asset.created_at);
    if (seen.length > ASSET_COUNT * 2) break; // a server that never stops paging must not hang the test
  }
  expect(seen).toHaveLength(ASSET_COUNT);
  expectEachCreatedIdOnce(seen);
  expectNewestFirst(createdAts);
});

test('cursor paging over raw HTTP: next_cursor on every full page, none on the last', async () => {
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const response = await api.get(`/video/v1/assets?limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(response.status, response.text).toBe(200);
    pages += 1;
    seen.push(...response.json.data.map((asset: { id: string }) => asset.id));
    cursor = response.json.next_cursor;
    if (cursor) expect(response.json.data).toHaveLength(PAGE_SIZE);
  } while (cursor && pages < 50);
  expect(pages).toBe(Math.ceil(ASSET_COUNT / PAGE_SIZE));
  expectEachCreatedIdOnce(seen);
});

test(`page-number paging (?limit=${PAGE_SIZE}&page=N until an empty page) yields each asset exactly once`, async () => {
  const seen: string[] = [];
  const createdAts: string[] = [];
  let page = 1;
  for (; page <= 50; page += 1) {
    const response = await api.get(`/video/v1/assets?limit=${PAGE_SIZE}&page=${page}`);
    expect(response.status, response.text).toBe(200);
    const data = response.json.data as Array<{ id: string; created_at: string }>;
    if (data.length === 0) break;
    expect(data.length).toBeLessThanOrEqual(PAGE_SIZE);
    seen.push(...data.map((asset) => asset.id));
    createdAts.push(...data.map((asset) => asset.created_at));
  }
  expect(page, 'first empty page').toBe(Math.ceil(ASSET_COUNT / PAGE_SIZE) + 1);
  expect(seen).toHaveLength(ASSET_COUNT);
  expectEachCreatedIdOnce(seen);
  expectNewestFirst(createdAts);
});

test('a page far past the end is exactly {"data":[]}', async () => {
  const response = await api.get(`/video/v1/assets?limit=${PAGE_SIZE}&page=100`);
  expect(response.status, response.text).toBe(200);
  expect(response.json).toEqual({ data: [] });
});

const invalidQueries = [
  { query: 'limit=0', field: /limit/ },
  { query: 'limit=101', field: /limit/ },
  { query: 'limit=abc', field: /limit/ },
  { query: 'limit=-5', field: /limit/ },
  { query: 'page=0', field: /page/ },
  { query: 'page=abc', field: /page/ },
];
for (const { query, field } of invalidQueries) {
  test(`GET /video/v1/assets?${query} → 400 invalid_parameters naming the parameter`, async () => {
    expectApiError(await api.get(`/video/v1/assets?${query}`), 400, 'invalid_parameters', field);
  });
}
