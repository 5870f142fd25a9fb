import { HANDSHAKE_BYTES, HANDSHAKE_TYPE } from '../srt-handshake';

/**
 * A caller's handshake as libsrt lays it out: control header, handshake body (an induction as
 * version 4, a conclusion as version 5 with an HSREQ extension), then the stream id extension,
 * whose 32-bit words travel with their bytes reversed.
 */
export const callerHandshake = ({
  type,
  cookie,
  streamId,
  socketId = 0x22867efe,
}: {
  type: number;
  cookie: number;
  streamId?: string;
  socketId?: number;
}): Buffer => {
  const isInduction = type === HANDSHAKE_TYPE.induction;
  const body = Buffer.alloc(HANDSHAKE_BYTES);
  body.writeUInt16BE(0x8000, 0);
  body.writeUInt32BE(123_456, 8);
  body.writeUInt32BE(isInduction ? 4 : 5, 16);
  body.writeUInt16BE(isInduction ? 2 : 0x0007, 22);
  body.writeUInt32BE(0x1234567, 24);
  body.writeUInt32BE(1500, 28);
  body.writeUInt32BE(8192, 32);
  body.writeInt32BE(type, 36);
  body.writeUInt32BE(socketId, 40);
  body.writeUInt32BE(cookie, 44);
  if (isInduction) return body;
  const hsreq = Buffer.alloc(16);
  hsreq.writeUInt16BE(1, 0);
  hsreq.writeUInt16BE(3, 2);
  if (streamId === undefined) return Buffer.concat([body, hsreq]);
  const text = Buffer.alloc(Math.ceil(Buffer.byteLength(streamId) / 4) * 4);
  text.write(streamId);
  const swapped = Buffer.alloc(text.length);
  for (let word = 0; word < text.length; word += 4) for (let byte = 0; byte < 4; byte += 1) swapped[word + byte] = text[word + 3 - byte]!;
  const sid = Buffer.alloc(4);
  sid.writeUInt16BE(5, 0);
  sid.writeUInt16BE(swapped.length / 4, 2);
  return Buffer.concat([body, hsreq, sid, swapped]);
};
