import { randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../../db/client';
import type { Prisma } from '../../db/generated/client';
import { notFound } from '../../errors/api-error';
import { liveStreamInclude } from '../live/live-stream-events';

type DbClient = Db | Prisma.TransactionClient;

/** A live stream row with its playback IDs in creation order, the shape the serializer needs. */
export type StoredLiveStream = Prisma.LiveStreamGetPayload<{ include: typeof liveStreamInclude }>;

export const findLiveStreamOrThrow = async (db: DbClient, liveStreamId: string): Promise<StoredLiveStream> => {
  const stream = await db.liveStream.findUnique({ where: { id: liveStreamId }, include: liveStreamInclude });
  if (!stream) throw notFound('Live stream');
  return stream;
};

// The publisher's only credential: 122 random bits, UUID-shaped like Mux's keys.
export const newStreamKey = (): string => randomUUID();

// SRT's encryption passphrase, 128 random bits as 32 hex characters (SRT takes 10–79 characters).
export const newSrtPassphrase = (): string => randomBytes(16).toString('hex');
