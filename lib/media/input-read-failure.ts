import { DependencyUnavailableError } from '../errors/dependency-unavailable';

// ffmpeg reads a source it has not got locally over HTTP (a presigned bucket URL, or this node's
// loopback URL of a source still downloading). When that server answers 5xx, refuses or resets the
// connection, or ends a response before its Content-Length, ffmpeg says so and stops reading; it
// may still exit 0 with what it had decoded (measured with Debian's ffmpeg 5.1: a response cut
// after 20 kB gave exit 0 and a few frames). Such a run read only part of its input, whatever its
// exit code: its output must not be stored, and the failure is an outage to retry, not a bad file.

const READ_FAILURES = [
  /HTTP error 5\d\d/,
  /Server returned 5XX/,
  /Stream ends prematurely/,
  /Connection refused/,
  /Connection reset by peer/,
  /Connection timed out/,
];

// AWS signature v4 query parameters: the URL is the bucket's.
const PRESIGNED = /[?&]X-Amz-Signature=/;

const httpInputsOf = (args: readonly string[]): string[] =>
  args.flatMap((arg, at) => (at > 0 && args[at - 1] === '-i' && /^https?:\/\//.test(arg) ? [arg] : []));

/**
 * The outage an ffmpeg run's stderr shows on one of its HTTP inputs (the run's output is then
 * incomplete, even with exit code 0), or null when every input was read or none is remote.
 */
export const inputReadFailure = (args: readonly string[], stderr: string): DependencyUnavailableError | null => {
  const remote = httpInputsOf(args);
  if (remote.length === 0) return null;
  const line = stderr.split('\n').find((candidate) => READ_FAILURES.some((pattern) => pattern.test(candidate)));
  if (line === undefined) return null;
  const fromBucket = remote.some((url) => PRESIGNED.test(url));
  const what = fromBucket ? 'reading the source from the bucket' : 'reading the source over HTTP';
  return new DependencyUnavailableError(fromBucket ? 'storage' : 'network', `${what} failed: ${line.replace(/^.*\] /, '').trim().slice(0, 200)}`);
};
