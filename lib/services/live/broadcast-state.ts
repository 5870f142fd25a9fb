import { getDb } from '../../db/client';
import { parseEmbeddedLiveSubtitles, parseGeneratedLiveSubtitles } from '../../schemas/live-captions';
import { recordingAssetSettings, type LiveIngestProtocol } from '../../schemas/live-stream';
import { canonicalLanguageCode, trackSelect } from '../../schemas/track';
import { generateId } from '../../utils/ids';
import { insertAsset } from '../assets/insert-asset';
import { recordTrackEvent } from '../tracks/track-events';
import { recordLiveStreamEvent } from './live-stream-events';

// The database side of a broadcast's lifecycle, each step one transaction with its webhook, in
// Mux's order: connected → recording (with the recording asset's video.asset.created) → active →
// disconnected (→ connected … on a reconnect) → idle.

const RECENT_ASSETS_KEPT = 10;

/** An embedded captions track's source: the CEA-608 channel of the recording's video it is read from. */
export const embeddedCaptionsSource = (channel: string): string => `cea-608:${channel}`;
export const embeddedCaptionsChannel = (sourceUrl: string | null): string | null => (sourceUrl?.startsWith('cea-608:') ? sourceUrl.slice('cea-608:'.length) : null);

const parseIds = (json: string): string[] => {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
};

/** `ingestNode`: this node, and where the others reach it (they forward live playback there). */
export const markConnected = async (
  liveStreamId: string,
  ingestNode: { id: string; url: string },
  firstConnection: boolean,
  ingestProtocol: LiveIngestProtocol,
): Promise<void> => {
  const now = new Date();
  await getDb().$transaction(async (tx) => {
    await tx.liveStream.update({
      where: { id: liveStreamId },
      // A new broadcast has no recording until its first media (markRecordingAndActive): one still
      // named here is another node's, which that node ends (and must not take for continued).
      data: { connectedAt: now, ingestNodeId: ingestNode.id, ingestNodeUrl: ingestNode.url, ingestProtocol, ...(firstConnection && { broadcastStartedAt: now, activeAssetId: null }) },
    });
    await recordLiveStreamEvent(tx, 'video.live_stream.connected', liveStreamId, { connected: true, recording: !firstConnection });
  });
};

/**
 * The first media of a broadcast arrived: its recording asset is created (when the stream has
 * new_asset_settings), then the stream is active. Returns the asset's playback IDs. The
 * recording's ingest type follows the protocol markConnected recorded. With generated_subtitles
 * the recording has a `generated_live` text track at once (the live captions, whose WebVTT file
 * finalize-recording.ts writes), and asks for the same captions as its first input's
 * generated_subtitles, which the on-demand ingest makes the `generated_live_final` track. Each of
 * its embedded_subtitles channels is a `closed_captions` text track, preparing until
 * finalize-recording.ts reads the channel out of the recording.
 */
export const markRecordingAndActive = async ({
  liveStreamId,
  assetId,
}: {
  liveStreamId: string;
  assetId: string | null;
}): Promise<Array<{ id: string; policy: string }>> =>
  getDb().$transaction(async (tx) => {
    const stream = await tx.liveStream.findUnique({ where: { id: liveStreamId } });
    if (!stream) return [];
    let playbackIds: Array<{ id: string; policy: string }> = [];
    if (assetId && stream.newAssetSettingsJson) {
      const settings = recordingAssetSettings(stream.newAssetSettingsJson);
      const captions = parseGeneratedLiveSubtitles(stream.generatedSubtitlesJson);
      const inputs = captions.length > 0 ? [{ generated_subtitles: captions }] : [];
      const asset = await insertAsset(tx, { settings, inputs, ingestType: stream.ingestProtocol === 'srt' ? 'live_srt' : 'live_rtmp', test: stream.test, assetId, liveStreamId });
      playbackIds = asset.playbackIds;
      for (const caption of captions) {
        const track = await tx.track.create({
          data: {
            id: generateId(),
            assetId,
            type: 'text',
            status: 'ready',
            name: caption.name,
            languageCode: canonicalLanguageCode(caption.language_code) ?? caption.language_code,
            textType: 'subtitles',
            textSource: 'generated_live',
            passthrough: caption.passthrough ?? null,
          },
          select: trackSelect,
        });
        await recordTrackEvent(tx, 'video.asset.track.created', assetId, track);
      }
      for (const caption of parseEmbeddedLiveSubtitles(stream.embeddedSubtitlesJson)) {
        const track = await tx.track.create({
          data: {
            id: generateId(),
            assetId,
            type: 'text',
            status: 'preparing',
            name: caption.name,
            languageCode: canonicalLanguageCode(caption.language_code) ?? caption.language_code,
            textType: 'subtitles',
            textSource: 'embedded',
            closedCaptions: true,
            sourceUrl: embeddedCaptionsSource(caption.language_channel),
            passthrough: caption.passthrough ?? null,
          },
          select: trackSelect,
        });
        await recordTrackEvent(tx, 'video.asset.track.created', assetId, track);
      }
      const recent = [...parseIds(stream.recentAssetIdsJson), assetId].slice(-RECENT_ASSETS_KEPT);
      await tx.liveStream.update({ where: { id: liveStreamId }, data: { activeAssetId: assetId, recentAssetIdsJson: JSON.stringify(recent) } });
    }
    await recordLiveStreamEvent(tx, 'video.live_stream.recording', liveStreamId, { connected: true, recording: true });
    const activated = await tx.liveStream.updateMany({ where: { id: liveStreamId, status: 'idle' }, data: { status: 'active' } });
    if (activated.count === 1) await recordLiveStreamEvent(tx, 'video.live_stream.active', liveStreamId, { connected: true, recording: true });
    return playbackIds;
  });

export const markDisconnected = async (liveStreamId: string): Promise<void> => {
  await getDb().$transaction(async (tx) => {
    const updated = await tx.liveStream.updateMany({ where: { id: liveStreamId, connectedAt: { not: null } }, data: { connectedAt: null } });
    if (updated.count === 1) await recordLiveStreamEvent(tx, 'video.live_stream.disconnected', liveStreamId, { connected: false, recording: false });
  });
};

/** The stream's reconnect_slate_url could not be used: its broadcast shows the default card instead. */
export const markSlateUnavailable = async (liveStreamId: string, message: string): Promise<void> => {
  await recordLiveStreamEvent(getDb(), 'video.live_stream.warning', liveStreamId, { warning: { type: 'custom_slate_unavailable', message } });
};

/**
 * The broadcast is over (reconnect window elapsed, complete, disable, maximum duration, or a
 * restart): the stream goes idle — a disabled one stays disabled — and the recording stops being
 * live; finalize-recording.ts then makes it an on-demand asset. The stream is left alone when
 * another node holds it now (its publisher reconnected there): only this node's recording ends,
 * unless that node continues the same recording.
 */
export const markBroadcastEnded = async ({ liveStreamId, assetId, nodeId }: { liveStreamId: string; assetId: string | null; nodeId: string }): Promise<void> => {
  await getDb().$transaction(async (tx) => {
    const ours = { id: liveStreamId, OR: [{ ingestNodeId: nodeId }, { ingestNodeId: null }] };
    const wasConnected = await tx.liveStream.updateMany({ where: { ...ours, connectedAt: { not: null } }, data: { connectedAt: null } });
    if (wasConnected.count === 1) await recordLiveStreamEvent(tx, 'video.live_stream.disconnected', liveStreamId, { connected: false, recording: false });
    const ended = await tx.liveStream.updateMany({ where: ours, data: { activeAssetId: null, broadcastStartedAt: null, ingestNodeId: null, ingestNodeUrl: null } });
    if (ended.count === 1) {
      const idle = await tx.liveStream.updateMany({ where: { id: liveStreamId, status: 'active' }, data: { status: 'idle' } });
      if (idle.count === 1) await recordLiveStreamEvent(tx, 'video.live_stream.idle', liveStreamId, { connected: false, recording: false });
    }
    // A recording another node continued (this node died and is back) is that node's to end.
    const continuedElsewhere =
      ended.count === 0 &&
      assetId !== null &&
      (await tx.liveStream.count({ where: { id: liveStreamId, activeAssetId: assetId, AND: [{ ingestNodeId: { not: null } }, { ingestNodeId: { not: nodeId } }] } })) > 0;
    if (assetId && !continuedElsewhere) {
      await tx.asset.updateMany({
        where: { id: assetId },
        data: { isLive: false, progressState: 'ingesting' },
      });
    }
  });
};
