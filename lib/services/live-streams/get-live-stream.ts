import { getDb } from '../../db/client';
import { findLiveStreamOrThrow, type StoredLiveStream } from './live-stream-record';

export const getLiveStream = ({ liveStreamId }: { liveStreamId: string }): Promise<StoredLiveStream> =>
  findLiveStreamOrThrow(getDb(), liveStreamId);
