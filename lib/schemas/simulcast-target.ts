import { z } from 'zod';
import { passthroughSchema } from './asset-settings';

// Simulcast targets on the wire (mux-api-2.md §6.1): where a live stream's broadcast is restreamed
// while it runs. An RTMP(S) target is the service's app URL plus a stream key, which the restreamer
// appends as the last path element; an SRT target is one complete URL (stream id and passphrase in
// its query), so it takes no stream key.

export const SIMULCAST_TARGET_STATUSES = ['idle', 'starting', 'broadcasting', 'errored'] as const;
export type SimulcastTargetStatus = (typeof SIMULCAST_TARGET_STATUSES)[number];
export const SIMULCAST_ERROR_SEVERITIES = ['normal', 'fatal'] as const;
export type SimulcastErrorSeverity = (typeof SIMULCAST_ERROR_SEVERITIES)[number];

export const SIMULCAST_URL_MAX_LENGTH = 1024;
export const SIMULCAST_STREAM_KEY_MAX_LENGTH = 255;

const SIMULCAST_PROTOCOLS = ['rtmp:', 'rtmps:', 'srt:'];
const EXPECTED_URL = 'an rtmp://, rtmps:// or srt:// URL';

/** Why `raw` cannot be a simulcast target's URL; undefined when it can. The address policy is the service's. */
export const simulcastUrlProblem = (raw: string): string | undefined => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `is not a valid URL: expected ${EXPECTED_URL}`;
  }
  if (!SIMULCAST_PROTOCOLS.includes(url.protocol)) return `must be ${EXPECTED_URL}`;
  if (url.hostname === '') return 'must include a host name';
  // A credential in the URL would be shown wherever the URL is; the stream key is the secret slot.
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.protocol === 'srt:') {
    // SRT has no well-known port to fall back on.
    if (url.port === '') return 'an srt:// URL must include the port, e.g. srt://srt.example.com:1234?streamid=…';
  } else if (url.pathname.replaceAll('/', '') === '') {
    return 'an RTMP URL must include the application name, e.g. rtmp://live.example.com/app';
  }
  return undefined;
};

export const isSrtUrl = (url: string): boolean => url.toLowerCase().startsWith('srt:');

export const createSimulcastTargetSchema = z
  .object({
    url: z
      .string({ error: `is required: ${EXPECTED_URL}` })
      .max(SIMULCAST_URL_MAX_LENGTH, { error: `must be at most ${SIMULCAST_URL_MAX_LENGTH} characters` })
      .superRefine((value, context) => {
        const problem = simulcastUrlProblem(value);
        if (problem) context.addIssue({ code: 'custom', message: problem });
      }),
    stream_key: z
      .string({ error: 'must be a string' })
      .max(SIMULCAST_STREAM_KEY_MAX_LENGTH, { error: `must be at most ${SIMULCAST_STREAM_KEY_MAX_LENGTH} characters` })
      // It becomes a path element of the URL the restreamer connects to.
      .regex(/^[\x21-\x7e]*$/, { error: 'must be printable ASCII characters without spaces' })
      .optional(),
    passthrough: passthroughSchema.optional(),
  })
  .refine((body) => !(body.stream_key && isSrtUrl(body.url)), {
    error: 'is only used with rtmp:// and rtmps:// URLs; an srt:// URL carries its stream id and passphrase itself (?streamid=…&passphrase=…)',
    path: ['stream_key'],
  });

export type CreateSimulcastTargetBody = z.infer<typeof createSimulcastTargetSchema>;

/** A new target's stored values. */
export type NewSimulcastTarget = { url: string; streamKey: string | null; passthrough: string | null };

export const normalizeSimulcastTarget = (body: CreateSimulcastTargetBody): NewSimulcastTarget => ({
  // The parsed form: the scheme in lower case, which is how the restreamer tells SRT from RTMP.
  url: new URL(body.url).href,
  streamKey: body.stream_key || null,
  passthrough: body.passthrough ?? null,
});

export type SimulcastTargetRecord = {
  id: string;
  url: string;
  streamKey: string | null;
  passthrough: string | null;
  status: string;
  errorSeverity: string | null;
};

// Maps a stored target to Mux's SimulcastTarget; error_severity only while errored, as Mux has it.
export const serializeSimulcastTarget = (target: SimulcastTargetRecord) => ({
  id: target.id,
  status: target.status as SimulcastTargetStatus,
  url: target.url,
  ...(target.streamKey !== null && { stream_key: target.streamKey }),
  ...(target.passthrough !== null && { passthrough: target.passthrough }),
  ...(target.status === 'errored' && target.errorSeverity !== null && { error_severity: target.errorSeverity as SimulcastErrorSeverity }),
});

export type SimulcastTargetJson = ReturnType<typeof serializeSimulcastTarget>;
