// The few parts of SRT's handshake (draft-sharabayko-srt, "Handshake") that the gateway reads or
// writes: it answers a caller's induction itself, reads the stream id of its conclusion, and
// replays the handshake to the stream's own listener. Everything after that passes unread.
//
// A control packet is a 16-byte header (bit 0 set, control type in the first 16 bits, timestamp at
// byte 8, destination socket id at byte 12); a handshake's body follows it at byte 16.

const HANDSHAKE_CONTROL_WORD = 0x8000;
const HEADER_BYTES = 16;
const BODY_BYTES = 48;
/** Header and handshake body without extensions. */
export const HANDSHAKE_BYTES = HEADER_BYTES + BODY_BYTES;

const OFFSET = {
  destinationSocket: 12,
  version: 16,
  encryption: 20,
  extension: 22,
  type: 36,
  socketId: 40,
  cookie: 44,
  extensions: HANDSHAKE_BYTES,
} as const;

export const HANDSHAKE_TYPE = { induction: 1, conclusion: -1 } as const;

// An HSv5 listener proves it speaks version 5 by this magic in its induction answer.
const HSV5_MAGIC = 0x4a17;
// A caller's induction: version 4 and the UDT "datagram" socket type in the extension field.
const INDUCTION_VERSION = 4;
const UDT_DGRAM = 2;
const SID_EXTENSION = 5;

// A rejection is a handshake whose type is 1000 + a reason; reasons from 1000 are the
// application's, following HTTP (libsrt's SRT_REJX_*: 1400 bad request, 1403 forbidden, …).
const REJECTION_TYPE_BASE = 1000;
export const REJECT_REASON = {
  badRequest: 1400,
  forbidden: 1403,
  conflict: 1409,
  unavailable: 1503,
} as const;
export type RejectReason = (typeof REJECT_REASON)[keyof typeof REJECT_REASON];

export type Handshake = { type: number; socketId: number; cookie: number };

/** The handshake fields of a packet, or null when it is not a handshake. */
export const readHandshake = (packet: Buffer): Handshake | null => {
  if (packet.length < HANDSHAKE_BYTES || packet.readUInt16BE(0) !== HANDSHAKE_CONTROL_WORD) return null;
  return { type: packet.readInt32BE(OFFSET.type), socketId: packet.readUInt32BE(OFFSET.socketId), cookie: packet.readUInt32BE(OFFSET.cookie) };
};

export const isRejection = (handshake: Handshake): boolean => handshake.type >= REJECTION_TYPE_BASE;

/**
 * The stream id a caller sent in its conclusion (SRTO_STREAMID), or null without one. libsrt
 * writes the string as 32-bit words in host order, so on the wire every four bytes are reversed.
 */
export const readStreamId = (packet: Buffer): string | null => {
  let offset: number = OFFSET.extensions;
  while (offset + 4 <= packet.length) {
    const type = packet.readUInt16BE(offset);
    const bodyBytes = packet.readUInt16BE(offset + 2) * 4;
    const body = packet.subarray(offset + 4, offset + 4 + bodyBytes);
    if (body.length < bodyBytes) return null;
    if (type === SID_EXTENSION) {
      const text = Buffer.alloc(body.length);
      for (let word = 0; word < body.length; word += 4) {
        for (let byte = 0; byte < 4; byte += 1) text[word + byte] = body[word + 3 - byte]!;
      }
      return text.toString('utf8').replace(/\0+$/, '');
    }
    offset += 4 + bodyBytes;
  }
  return null;
};

// An answer to `request`, addressed to the caller's socket: the request's body with the version,
// encryption, extension, type, socket id and cookie fields the answer needs.
const answerTo = (request: Buffer, fields: { version: number; extension: number; type: number; socketId: number; cookie: number }): Buffer => {
  const answer = Buffer.from(request.subarray(0, HANDSHAKE_BYTES));
  answer.writeUInt32BE(request.readUInt32BE(OFFSET.socketId), OFFSET.destinationSocket);
  answer.writeUInt32BE(fields.version, OFFSET.version);
  answer.writeUInt16BE(0, OFFSET.encryption);
  answer.writeUInt16BE(fields.extension, OFFSET.extension);
  answer.writeInt32BE(fields.type, OFFSET.type);
  answer.writeUInt32BE(fields.socketId, OFFSET.socketId);
  answer.writeUInt32BE(fields.cookie, OFFSET.cookie);
  return answer;
};

/** The listener's answer to a caller's induction: HSv5, and the cookie its conclusion must bring back. */
export const inductionAnswer = (induction: Buffer, { cookie, socketId }: { cookie: number; socketId: number }): Buffer =>
  answerTo(induction, { version: 5, extension: HSV5_MAGIC, type: HANDSHAKE_TYPE.induction, socketId, cookie });

/** Refuses a caller's conclusion: its connect fails at once with `reason`. */
export const rejectionOf = (conclusion: Buffer, reason: RejectReason): Buffer =>
  answerTo(conclusion, { version: 5, extension: 0, type: REJECTION_TYPE_BASE + reason, socketId: 0, cookie: 0 });

/** The induction the caller of `conclusion` sent us, made again for the stream's own listener. */
export const inductionFor = (conclusion: Buffer): Buffer => {
  const induction = Buffer.alloc(HANDSHAKE_BYTES);
  conclusion.copy(induction, 0, 0, HANDSHAKE_BYTES);
  induction.writeUInt32BE(0, OFFSET.destinationSocket);
  induction.writeUInt32BE(INDUCTION_VERSION, OFFSET.version);
  induction.writeUInt16BE(0, OFFSET.encryption);
  induction.writeUInt16BE(UDT_DGRAM, OFFSET.extension);
  induction.writeInt32BE(HANDSHAKE_TYPE.induction, OFFSET.type);
  induction.writeUInt32BE(0, OFFSET.cookie);
  induction.fill(0, OFFSET.cookie + 4, HANDSHAKE_BYTES);
  return induction;
};

/** A copy of a caller's conclusion carrying another listener's cookie. */
export const withCookie = (conclusion: Buffer, cookie: number): Buffer => {
  const copy = Buffer.from(conclusion);
  copy.writeUInt32BE(cookie, OFFSET.cookie);
  return copy;
};
