// One rendition of an asset's ladder and which of its segments are on disk, as the dashboard
// shows it (camelCase in the service, snake_case on the wire like every other JSON here).

export type RenditionStatus = {
  name: string;
  width: number | null;
  height: number | null;
  bitrate: number;
  background: boolean;
  listed: boolean;
  segmentCount: number;
  encodedSegments: number[];
};

export const serializeRenditionStatus = (rendition: RenditionStatus) => ({
  name: rendition.name,
  width: rendition.width,
  height: rendition.height,
  bitrate: rendition.bitrate,
  background: rendition.background,
  listed: rendition.listed,
  segment_count: rendition.segmentCount,
  encoded_segments: rendition.encodedSegments,
});

export type RenditionJson = ReturnType<typeof serializeRenditionStatus>;
