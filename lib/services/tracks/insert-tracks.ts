import type { Prisma } from '../../db/generated/client';
import { enqueueJob } from '../../jobs/queue';
import { canonicalLanguageCode, languageName, trackSelect, type TrackRecord } from '../../schemas/track';
import { generateId } from '../../utils/ids';
import { recordTrackEvent } from './track-events';

// Adds tracks that have to be prepared (a subtitle file to fetch and check, an audio file to fetch
// and encode, captions to generate), each `preparing` with the job that prepares it, in the
// caller's transaction. `announce: false` leaves `video.asset.track.created` to the caller (the
// ingest records it after `video.asset.ready`, as the tracks appear in that event already).

export type NewTrack =
  | { kind: 'text'; url: string; languageCode: string; name?: string; closedCaptions?: boolean; passthrough?: string }
  | { kind: 'audio'; url: string; languageCode: string; name?: string; passthrough?: string }
  | {
      kind: 'generated';
      sourceTrackId: string;
      languageCode: string;
      name?: string;
      passthrough?: string;
      /** Mux's text_source: `generated_live_final` for the re-transcribed captions of a live recording. */
      textSource?: 'generated_vod' | 'generated_live_final';
    };

export const TRACK_JOBS = { text: 'prepare-text-track-job', audio: 'prepare-audio-track-job', generated: 'generate-captions-job' } as const;

const defaultName = (track: NewTrack): string => {
  const language = languageName(track.languageCode) ?? track.languageCode;
  return track.kind === 'generated' ? `${language} (generated)` : language;
};

export const insertTracks = async (
  tx: Prisma.TransactionClient,
  assetId: string,
  tracks: NewTrack[],
  { announce = true }: { announce?: boolean } = {},
): Promise<TrackRecord[]> => {
  // A live recording's generated_live track gives way to its generated_live_final one (players
  // list only one of them), which keeps its name.
  const existing = await tx.track.findMany({ where: { assetId, OR: [{ textSource: null }, { textSource: { not: 'generated_live' } }] }, select: { type: true, name: true } });
  // Names are unique within the audio group and within the subtitles (they are what players list).
  const taken = new Set(existing.map((track) => `${track.type}:${track.name}`));
  const created: TrackRecord[] = [];
  // Tracks are listed by creation time; rows made within one millisecond would fall back to their
  // random ids, so each row of a batch is stamped at least a millisecond after the one before.
  let previousCreatedAt = 0;
  for (const track of tracks) {
    const createdAt = new Date(Math.max(Date.now(), previousCreatedAt + 1));
    previousCreatedAt = createdAt.getTime();
    const type = track.kind === 'audio' ? 'audio' : 'text';
    const base = track.name?.trim() || defaultName(track);
    let name = base;
    for (let n = 2; taken.has(`${type}:${name}`); n++) name = `${base} (${n})`;
    taken.add(`${type}:${name}`);
    const row = await tx.track.create({
      data: {
        id: generateId(),
        assetId,
        type,
        status: 'preparing',
        name,
        // `auto` stays as asked until the engine says which language it heard.
        languageCode: track.languageCode === 'auto' ? 'auto' : (canonicalLanguageCode(track.languageCode) ?? track.languageCode),
        ...(type === 'text' && { textType: 'subtitles', textSource: track.kind === 'generated' ? (track.textSource ?? 'generated_vod') : 'uploaded' }),
        ...(track.kind === 'text' && { closedCaptions: track.closedCaptions ?? false }),
        ...(track.kind === 'generated' ? { sourceTrackId: track.sourceTrackId } : { sourceUrl: track.url }),
        passthrough: track.passthrough ?? null,
        createdAt,
      },
      select: trackSelect,
    });
    await enqueueJob({ name: TRACK_JOBS[track.kind], payload: { trackId: row.id }, maxAttempts: 3, dedupeKey: `track:${row.id}`, transaction: tx });
    if (announce) await recordTrackEvent(tx, 'video.asset.track.created', assetId, row);
    created.push(row);
  }
  return created;
};
