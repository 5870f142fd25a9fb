import { getEnv } from '@/lib/env';

export const dynamic = 'force-dynamic';

// The landing page of a running instance: where the API is and how to get a token.
export default function HomePage() {
  const { baseUrl, streamUrl } = getEnv();
  return (
    <main className="mx-auto max-w-2xl px-6 py-16">
      <h1 className="text-3xl font-semibold tracking-tight">Keyframe is running</h1>
      <p className="mt-3 text-zinc-600">
        A self-hosted video platform that speaks the Mux Video API. Point any Mux client at this server.
      </p>
      <dl className="mt-8 grid grid-cols-[max-content_1fr] gap-x-6 gap-y-2 text-sm">
        <dt className="font-medium">API base URL</dt>
        <dd className="font-mono">{baseUrl}</dd>
        <dt className="font-medium">Playback origin</dt>
        <dd className="font-mono">{streamUrl}</dd>
      </dl>
      <h2 className="mt-10 text-lg font-semibold">Create an access token</h2>
      <pre className="mt-3 overflow-x-auto rounded-lg bg-zinc-900 p-4 text-sm text-zinc-100">
        npm run --silent keyframe -- tokens create --name my-app
      </pre>
    </main>
  );
}
