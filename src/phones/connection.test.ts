import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { AudioDrops } from '../audio/index.js';
import { PhoneConnection } from './connection.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanups.splice(0)) fn();
});

/** A phone socket on loopback, its gateway end wrapped in a PhoneConnection whose handler waits for `release()`. */
async function blockedConnection(): Promise<{ client: WebSocket; server: WebSocket; connection: PhoneConnection; applied: string[]; release(): void; allApplied(count: number): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { perMessageDeflate: false });
  const [server, upgrade] = await new Promise<[WebSocket, IncomingMessage]>((resolve) => wss.once('connection', (ws, req) => resolve([ws, req])));
  await new Promise((resolve) => client.once('open', resolve));
  cleanups.push(() => {
    client.terminate();
    wss.close();
  });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const applied: string[] = [];
  let waiting: { count: number; resolve(): void } | undefined;
  const connection = new PhoneConnection(
    'phone-test',
    server,
    upgrade.socket,
    pino({ level: 'silent' }),
    {
      onMessage: async (message) => {
        await gate;
        applied.push(message.type === 'health' ? String(message.health.carrier) : message.type);
        if (waiting && applied.length >= waiting.count) waiting.resolve();
      },
      audio: { fromPhone: () => undefined },
      onClose: () => undefined,
      onSeen: () => undefined,
    },
    { pingIntervalMs: 60_000, pongTimeoutMs: 10_000 },
    new AudioDrops(),
  );
  const allApplied = (count: number): Promise<void> =>
    applied.length >= count ? Promise.resolve() : new Promise((resolve) => (waiting = { count, resolve }));
  return { client, server, connection, applied, release, allApplied };
}

describe('PhoneConnection', () => {
  it('stops reading a phone whose messages pile up, instead of buffering them, and reads on once they are applied', async () => {
    const { client, server, applied, release, allApplied } = await blockedConnection();
    let parsed = 0;
    server.on('message', () => (parsed += 1));
    const sent = 20_000;
    client.send(JSON.stringify({ type: 'hello', appVersion: '1' }));
    for (let i = 0; i < sent; i++) client.send(JSON.stringify({ type: 'health', health: { carrier: `c${i}` } }));

    await new Promise<void>((resolve) => {
      const check = (): void => (server.isPaused ? resolve() : void setImmediate(check));
      check();
    });
    // Paused with 100 waiting plus the rest of the 64 KiB read being parsed (about 1,300 of these
    // small messages): not the 20,000 sent.
    expect(parsed).toBeLessThan(2000);

    release();
    await allApplied(sent + 1);
    expect(applied[0]).toBe('hello');
    expect(applied.slice(1)).toEqual(Array.from({ length: sent }, (_, i) => `c${i}`));
    expect(server.isPaused).toBe(false);
  });

  it('closes a phone that stops reading with 4008 once 1 MiB waits for it, instead of queueing without end', async () => {
    const { client, connection } = await blockedConnection();
    const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    client.pause();
    const frame = Buffer.alloc(640);
    let sent = 0;
    // 64 MB at most: far beyond the kernel's socket buffers and the gateway's bound.
    while (connection.open && sent < 100_000) {
      connection.sendAudio(frame);
      sent += 1;
    }
    expect(connection.open).toBe(false);
    expect(sent).toBeLessThan(100_000);
    client.resume();
    expect(await closed).toBe(4008);
  });
});
