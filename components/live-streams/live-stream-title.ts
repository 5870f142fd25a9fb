import type { LiveStreamRowJson } from '../hooks/dashboard-types';

export const liveStreamTitle = (stream: LiveStreamRowJson): string => stream.meta?.title || stream.id;
