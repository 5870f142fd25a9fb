import { LRUCache } from 'lru-cache';
import { UAParser } from 'ua-parser-js';

// The viewer's browser, OS and device from a User-Agent header, for views whose beacons do not
// say (mux-embed sends viewer_* fields only where the browser exposes them). Device types are
// named as Mux's viewer_device_category.

export type ViewerAgent = {
  browser: string | null;
  browserVersion: string | null;
  os: string | null;
  osVersion: string | null;
  deviceType: string | null;
};

const DEVICE_CATEGORIES: Record<string, string> = { mobile: 'phone', tablet: 'tablet', smarttv: 'tv', console: 'console', wearable: 'wearable', embedded: 'embedded' };

// Most beacons come from a few browsers: parsed once each.
const parsed = new LRUCache<string, ViewerAgent>({ max: 1_000 });

export const parseUserAgent = (userAgent: string | undefined): ViewerAgent => {
  if (!userAgent) return { browser: null, browserVersion: null, os: null, osVersion: null, deviceType: null };
  const key = userAgent.slice(0, 512);
  const known = parsed.get(key);
  if (known) return known;
  const agent = parseWith(key);
  parsed.set(key, agent);
  return agent;
};

const parseWith = (userAgent: string): ViewerAgent => {
  const result = new UAParser(userAgent).getResult();
  return {
    browser: result.browser.name ?? null,
    browserVersion: result.browser.version ?? null,
    os: result.os.name ?? null,
    osVersion: result.os.version ?? null,
    deviceType: result.device.type ? (DEVICE_CATEGORIES[result.device.type] ?? result.device.type) : result.browser.name ? 'desktop' : null,
  };
};
