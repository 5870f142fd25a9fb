import { describe, expect, test } from 'vitest';
import { callerHandshake } from './test-support/caller-handshake';
import { HANDSHAKE_BYTES, HANDSHAKE_TYPE, inductionAnswer, inductionFor, isRejection, readHandshake, readStreamId, REJECT_REASON, rejectionOf, withCookie } from './srt-handshake';

const conclusion = ({ streamId, cookie = 0xc0ffee }: { streamId?: string; cookie?: number }): Buffer => callerHandshake({ type: HANDSHAKE_TYPE.conclusion, cookie, streamId });

describe('SRT handshake', () => {
  test('reads the type, socket id and cookie of a handshake, and nothing of a data packet', () => {
    expect(readHandshake(conclusion({}))).toEqual({ type: HANDSHAKE_TYPE.conclusion, socketId: 0x22867efe, cookie: 0xc0ffee });
    const data = Buffer.alloc(1316);
    data.writeUInt32BE(0x00001234, 0);
    expect(readHandshake(data)).toBeNull();
    expect(readHandshake(Buffer.alloc(20))).toBeNull();
  });

  test('reads the stream id past the other extensions, whatever its length', () => {
    expect(readStreamId(conclusion({ streamId: '831b5bde-cd8a-5bc4-115d-4ba34b19f481' }))).toBe('831b5bde-cd8a-5bc4-115d-4ba34b19f481');
    expect(readStreamId(conclusion({ streamId: '#!::r=abc,m=publish' }))).toBe('#!::r=abc,m=publish');
    expect(readStreamId(conclusion({}))).toBeNull();
    // An extension claiming more words than the packet holds.
    const truncated = conclusion({ streamId: 'abcdefgh' }).subarray(0, HANDSHAKE_BYTES + 16 + 4 + 4);
    expect(readStreamId(truncated)).toBeNull();
  });

  test("answers an induction as an HSv5 listener: to the caller's socket, version 5, the magic, our cookie", () => {
    const induction = conclusion({});
    induction.writeInt32BE(HANDSHAKE_TYPE.induction, 36);
    const answer = inductionAnswer(induction, { cookie: 0xabcdef01, socketId: 0x22867efe });
    expect(answer.readUInt32BE(12)).toBe(0x22867efe);
    expect(answer.readUInt32BE(16)).toBe(5);
    expect(answer.readUInt16BE(22)).toBe(0x4a17);
    expect(readHandshake(answer)).toEqual({ type: HANDSHAKE_TYPE.induction, socketId: 0x22867efe, cookie: 0xabcdef01 });
    expect(answer.readUInt32BE(24), 'the initial sequence number is echoed').toBe(0x1234567);
  });

  test('a rejection carries 1000 + the reason and is addressed to the caller', () => {
    const rejection = rejectionOf(conclusion({ streamId: 'x' }), REJECT_REASON.forbidden);
    expect(rejection.readUInt32BE(12)).toBe(0x22867efe);
    const handshake = readHandshake(rejection)!;
    expect(handshake.type).toBe(2403);
    expect(isRejection(handshake)).toBe(true);
    expect(isRejection(readHandshake(conclusion({}))!)).toBe(false);
  });

  test("replays the caller's induction to its listener, then its conclusion with the listener's cookie", () => {
    const sent = conclusion({ streamId: 'key' });
    const induction = inductionFor(sent);
    expect(induction.length).toBe(HANDSHAKE_BYTES);
    expect(readHandshake(induction)).toEqual({ type: HANDSHAKE_TYPE.induction, socketId: 0x22867efe, cookie: 0 });
    expect([induction.readUInt32BE(16), induction.readUInt16BE(22), induction.readUInt32BE(12)]).toEqual([4, 2, 0]);
    const forwarded = withCookie(sent, 0x5cd4a0e2);
    expect(readHandshake(forwarded)?.cookie).toBe(0x5cd4a0e2);
    expect(readStreamId(forwarded)).toBe('key');
    expect(readHandshake(sent)?.cookie, 'the original is left as it was').toBe(0xc0ffee);
  });
});
