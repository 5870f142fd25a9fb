import type { ChildProcessSet } from './child-process-set';
import { runProcess } from './run-process';

export type MediaToolCheck = { ok: true; version: string } | { ok: false; reason: string };

const VERSION_TIMEOUT_MS = 5_000;

/** Confirms an ffmpeg-family binary runs, e.g. "ffprobe version 5.1.6-0+deb12u1 Copyright ..." → "5.1.6-0+deb12u1". */
export async function checkMediaTool(path: string, children: ChildProcessSet): Promise<MediaToolCheck> {
  let result;
  try {
    result = await runProcess({ command: path, args: ['-version'], timeoutMs: VERSION_TIMEOUT_MS, maxOutputBytes: 64 * 1024, children });
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (result.timedOut) return { ok: false, reason: `"${path} -version" did not answer within ${VERSION_TIMEOUT_MS} ms` };
  const firstLine = result.stdout.split(/\r?\n/, 1)[0]?.trim() ?? '';
  if (result.exitCode !== 0) {
    const detail = result.stderr.trim().split(/\r?\n/).pop() ?? '';
    return { ok: false, reason: `"${path} -version" exited with ${result.exitCode ?? result.signal}${detail ? `: ${detail}` : ''}` };
  }
  const match = /\bversion\s+(\S+)/i.exec(firstLine);
  if (!match?.[1]) return { ok: false, reason: `"${path}" does not look like an ffmpeg tool (first line: "${firstLine}")` };
  return { ok: true, version: match[1] };
}
