// Static rendition (MP4/M4A download) names and resolutions as Mux defines them.

export const ADVANCED_RESOLUTIONS = ['2160p', '1440p', '1080p', '720p', '540p', '480p', '360p', '270p'] as const;
export const STATIC_RESOLUTIONS = ['highest', 'audio-only', ...ADVANCED_RESOLUTIONS] as const;
export type StaticResolution = (typeof STATIC_RESOLUTIONS)[number];

export const MP4_SUPPORT_VALUES = ['none', 'standard', 'capped-1080p', 'audio-only', 'audio-only,capped-1080p'] as const;
export type Mp4Support = (typeof MP4_SUPPORT_VALUES)[number];

/** What the legacy `mp4_support` setting creates besides the new API's resolutions. */
export type LegacyResolution = 'capped-1080p' | 'low' | 'medium' | 'high';

export type StaticRenditionRequest = { resolution: StaticResolution; passthrough?: string };

export const isAdvancedResolution = (resolution: string): boolean => (ADVANCED_RESOLUTIONS as readonly string[]).includes(resolution);

/** The file a resolution is served as: `highest.mp4`, `audio.m4a`, `720p.mp4`, `capped-1080p.mp4`, `low.mp4` … */
export const staticRenditionName = (resolution: StaticResolution | LegacyResolution): string =>
  resolution === 'audio-only' ? 'audio.m4a' : `${resolution}.mp4`;

export const staticRenditionSelect = {
  id: true,
  name: true,
  resolution: true,
  viaMp4Support: true,
  status: true,
  width: true,
  height: true,
  bitrate: true,
  fileSize: true,
  passthrough: true,
} as const;

export type StaticRenditionRecord = {
  id: string;
  name: string;
  resolution: string;
  viaMp4Support: boolean;
  status: string;
  width: number | null;
  height: number | null;
  bitrate: number | null;
  fileSize: bigint | null;
  passthrough: string | null;
};

const resolutionTierOf = (file: StaticRenditionRecord): string | undefined => {
  if (file.name.endsWith('.m4a')) return 'audio-only';
  if (file.width === null || file.height === null) return undefined;
  const shortSide = Math.min(file.width, file.height);
  return shortSide >= 2160 ? '2160p' : shortSide >= 1440 ? '1440p' : shortSide >= 1080 ? '1080p' : '720p';
};

/**
 * A file as Mux shows it. Those of the legacy `mp4_support` setting carry only what that API had
 * (name, ext, size, bitrate); the static_renditions API adds id, type, status and resolution.
 */
export const serializeStaticRendition = (file: StaticRenditionRecord) => {
  const measured = {
    ...(file.width !== null && { width: file.width }),
    ...(file.height !== null && { height: file.height }),
    ...(file.bitrate !== null && { bitrate: file.bitrate }),
    ...(file.fileSize !== null && { filesize: file.fileSize.toString() }),
  };
  const ext = file.name.endsWith('.m4a') ? 'm4a' : 'mp4';
  if (file.viaMp4Support) return { name: file.name, ext, ...measured };
  const tier = resolutionTierOf(file);
  return {
    id: file.id,
    type: isAdvancedResolution(file.resolution) ? 'advanced' : 'standard',
    status: file.status,
    resolution: file.resolution,
    ...(tier && file.status === 'ready' && { resolution_tier: tier }),
    name: file.name,
    ext,
    ...measured,
    ...(file.passthrough !== null && { passthrough: file.passthrough }),
  };
};

export type StaticRenditionJson = ReturnType<typeof serializeStaticRendition>;

/**
 * The asset's `static_renditions` object, absent when it has none. The status summarises the files:
 * preparing while any is, errored when none could be made, else ready. Legacy files are listed
 * once ready, as Mux lists them; the new API lists every file with its own status.
 */
export const serializeStaticRenditions = (files: StaticRenditionRecord[]) => {
  if (files.length === 0) return undefined;
  const status = files.some((file) => file.status === 'preparing')
    ? 'preparing'
    : files.every((file) => file.status === 'errored' || file.status === 'skipped') && files.some((file) => file.status === 'errored')
      ? 'errored'
      : 'ready';
  const listed = files.filter((file) => !file.viaMp4Support || file.status === 'ready');
  return { status, ...(listed.length > 0 && { files: listed.map(serializeStaticRendition) }) };
};

/** Every file name a static rendition can be served as. */
export const STATIC_RENDITION_NAMES: readonly string[] = [
  ...STATIC_RESOLUTIONS.map(staticRenditionName),
  ...(['capped-1080p', 'low', 'medium', 'high'] as const).map(staticRenditionName),
];

export const isStaticRenditionName = (name: string): boolean => STATIC_RENDITION_NAMES.includes(name);

/**
 * The files the legacy `mp4_support` setting asks for. `standard` (deprecated by Mux) makes
 * low/medium/high.mp4; which rung each is, is decided when the file is built (static-rendition-rung.ts).
 */
export const mp4SupportResolutions = (mp4Support: Mp4Support): Array<'audio-only' | LegacyResolution> => {
  switch (mp4Support) {
    case 'none':
      return [];
    case 'capped-1080p':
      return ['capped-1080p'];
    case 'audio-only':
      return ['audio-only'];
    case 'audio-only,capped-1080p':
      return ['audio-only', 'capped-1080p'];
    case 'standard':
      return ['low', 'medium', 'high'];
  }
};
