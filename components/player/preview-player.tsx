'use client';

import dynamic from 'next/dynamic';

// Client-only: hls.js needs MediaSource, which does not exist during server rendering.
export const PreviewPlayer = dynamic(() => import('./hls-player').then((module) => module.HlsPlayer), {
  ssr: false,
  loading: () => <div className="aspect-video w-full animate-pulse rounded-lg bg-zinc-200" />,
});
