import { createSocket, type Socket } from 'node:dgram';
import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { startSrtGateway, type SrtGateway } from './srt-gateway';
import { HANDSHAKE_TYPE, readHandshake } from './srt-handshake';
import { callerHandshake } from './test-support/caller-handshake';

// The gateway's own part of the handshake, with raw datagrams: what it answers, and what it
// refuses to act on. (A real libsrt caller through it to a real listener: e2e/live/srt.spec.ts.)

const log = pino({ level: 'silent' });
let gateway: SrtGateway | undefined;
let caller: Socket | undefined;

afterEach(async () => {
  caller?.close();
  caller = undefined;
  await gateway?.close();
  gateway = undefined;
});

const handshake = (type: number, cookie: number, streamId?: string): Buffer => callerHandshake({ type, cookie, streamId, socketId: 0x1234abcd });

const exchange = (socket: Socket, port: number, packet: Buffer, waitMs = 1_000): Promise<Buffer | null> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.off('message', onMessage);
      resolve(null);
    }, waitMs);
    const onMessage = (answer: Buffer) => {
      clearTimeout(timer);
      socket.off('message', onMessage);
      resolve(answer);
    };
    socket.on('message', onMessage);
    socket.send(packet, port, '127.0.0.1');
  });

describe('SRT gateway', () => {
  test('answers an induction with a cookie, refuses an unknown key at the conclusion, and ignores a conclusion with a forged cookie', async () => {
    const admitted: string[] = [];
    gateway = await startSrtGateway({
      port: 0,
      host: '127.0.0.1',
      admit: async (streamKey) => {
        admitted.push(streamKey);
        return { accept: false, reason: 'unknown stream key' };
      },
      openRelay: () => Promise.reject(new Error('no relay in this test')),
      log,
    });
    caller = createSocket('udp4');
    await new Promise<void>((resolve) => caller!.bind(0, '127.0.0.1', resolve));

    const answer = await exchange(caller, gateway.port, handshake(HANDSHAKE_TYPE.induction, 0));
    expect(answer).not.toBeNull();
    const induction = readHandshake(answer!)!;
    expect(induction.type).toBe(HANDSHAKE_TYPE.induction);
    expect(answer!.readUInt16BE(22), 'HSv5 magic').toBe(0x4a17);
    expect(answer!.readUInt32BE(12), "addressed to the caller's socket").toBe(0x1234abcd);

    const forged = await exchange(caller, gateway.port, handshake(HANDSHAKE_TYPE.conclusion, (induction.cookie + 1) >>> 0, 'some-key'), 300);
    expect(forged, 'no answer to a conclusion without our cookie').toBeNull();
    expect(admitted).toEqual([]);

    const refused = await exchange(caller, gateway.port, handshake(HANDSHAKE_TYPE.conclusion, induction.cookie, 'some-key'));
    expect(admitted).toEqual(['some-key']);
    expect(readHandshake(refused!)?.type, 'rejected: 1000 + 1403 (forbidden)').toBe(2403);
    // The caller repeats its conclusion until answered; the same refusal comes back, without another key check.
    const again = await exchange(caller, gateway.port, handshake(HANDSHAKE_TYPE.conclusion, induction.cookie, 'some-key'));
    expect(readHandshake(again!)?.type).toBe(2403);
    expect(admitted).toEqual(['some-key']);
  });

  test('a stream id that names no key is refused as a bad request without a key check', async () => {
    let checks = 0;
    gateway = await startSrtGateway({
      port: 0,
      host: '127.0.0.1',
      admit: async () => {
        checks += 1;
        return { accept: true, passphrase: null };
      },
      openRelay: () => Promise.reject(new Error('no relay in this test')),
      log,
    });
    caller = createSocket('udp4');
    await new Promise<void>((resolve) => caller!.bind(0, '127.0.0.1', resolve));
    const induction = readHandshake((await exchange(caller, gateway.port, handshake(HANDSHAKE_TYPE.induction, 0)))!)!;
    const refused = await exchange(caller, gateway.port, handshake(HANDSHAKE_TYPE.conclusion, induction.cookie));
    expect(readHandshake(refused!)?.type).toBe(2400);
    expect(checks).toBe(0);
  });
});
