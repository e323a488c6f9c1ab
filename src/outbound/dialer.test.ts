import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { parseCidrList } from './cidr.js';
import { dial, type DialOptions, type DialOutcome } from './dialer.js';
import { OutboundPolicy } from './policy.js';
import { loopbackWsServer } from '../../test/helpers/ws-server.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()?.();
});

const OPTIONS: DialOptions = { headers: { 'x-test': 'yes' }, handshakeTimeoutMs: 5_000, maxPayload: 1024 * 1024 };

/** A TCP server on loopback port 0 that hands every connection to `onSocket`; closed after the test. */
async function tcpServer(onSocket: (s: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    onSocket(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** A WebSocket server on loopback that greets each client at once, keeping the upgrade's headers. */
async function greetingServer(): Promise<{ url: string; headers: IncomingHttpHeaders[] }> {
  const headers: IncomingHttpHeaders[] = [];
  const { wss, port, close } = await loopbackWsServer();
  cleanup.push(close);
  wss.on('connection', (ws, req) => {
    headers.push(req.headers);
    ws.send('hello');
  });
  return { url: `ws://127.0.0.1:${port}/agent`, headers };
}

/** Dials and waits for the outcome; a failure found at once is the outcome too. */
function outcome(url: string, o: Partial<DialOptions> = {}): Promise<DialOutcome> {
  return new Promise((resolve) => {
    const dialling = dial(url, { ...OPTIONS, ...o }, resolve);
    if (!dialling.ok) resolve(dialling);
  });
}

describe('dial', () => {
  it('hands over the open socket with its TCP socket, sends the headers, and loses no message the server sends at once', async () => {
    const server = await greetingServer();
    const first = await new Promise<string>((resolve, reject) => {
      const dialling = dial(server.url, OPTIONS, (o) => {
        if (!o.ok) return reject(new Error(o.failure.kind));
        expect(o.transport.writable).toBe(true);
        cleanup.push(() => o.socket.terminate());
        // Added only now, inside `open`: the greeting must still reach it.
        o.socket.once('message', (data) => resolve(String(data)));
      });
      expect(dialling.ok).toBe(true);
    });
    expect(first).toBe('hello');
    expect(server.headers[0]?.['x-test']).toBe('yes');
  });

  it('reports a refused upgrade with its status, and the first bytes of its body when asked', async () => {
    const body = '{"error":{"code":"nope","message":"go away"}}';
    const http = createHttpServer();
    http.on('upgrade', (_req, socket) => socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/`;

    expect(await outcome(url)).toEqual({ ok: false, failure: { kind: 'upgrade-refused', status: 403, body: '' } });
    expect(await outcome(url, { refusedBodyBytes: 16 * 1024 })).toEqual({ ok: false, failure: { kind: 'upgrade-refused', status: 403, body } });
  });

  it('gives up a server that accepts the connection but never answers the upgrade, and closes the connection', async () => {
    let gone!: () => void;
    const closed = new Promise<void>((resolve) => (gone = resolve));
    const port = await tcpServer((s) => {
      s.on('error', () => {});
      // Read (and drop) the upgrade request, so that its end is seen.
      s.resume();
      s.on('close', () => gone());
    });
    const started = performance.now();
    expect(await outcome(`ws://127.0.0.1:${port}/`, { handshakeTimeoutMs: 150 })).toEqual({ ok: false, failure: { kind: 'timeout', afterMs: 150 } });
    expect(performance.now() - started).toBeLessThan(2_000);
    await closed;
  });

  it('tells a refused connection from one closed before the upgrade was answered', async () => {
    const freed = await tcpServer(() => {});
    // Closed again: nothing listens on its port now.
    await cleanup.pop()?.();
    const refused = await outcome(`ws://127.0.0.1:${freed}/`);
    expect(refused).toMatchObject({ ok: false, failure: { kind: 'error', code: 'ECONNREFUSED', message: expect.stringContaining('ECONNREFUSED') } });

    const hangUp = await tcpServer((s) => s.once('data', () => s.destroy()));
    expect(await outcome(`ws://127.0.0.1:${hangUp}/`)).toMatchObject({ ok: false, failure: { kind: 'closed' } });
  });

  it('refuses an address the outbound rules deny: a literal at once, a name once resolved', async () => {
    const deny = new OutboundPolicy({ deny: parseCidrList('127.0.0.0/8,::1'), allow: [] });
    let called = false;
    const literal = dial('ws://127.0.0.1:9/', { ...OPTIONS, policy: deny }, () => (called = true));
    expect(literal).toEqual({ ok: false, failure: { kind: 'not-allowed', message: expect.stringMatching(/^refused to connect to 127\.0\.0\.1: .*OUTBOUND_DENY/) } });
    expect(called).toBe(false);

    const server = await greetingServer();
    const named = await outcome(server.url.replace('127.0.0.1', 'localhost'), { policy: deny });
    expect(named).toEqual({ ok: false, failure: { kind: 'not-allowed', message: expect.stringMatching(/^refused to connect to localhost: /) } });
    expect(server.headers).toHaveLength(0);
  });

  it('refuses a URL it cannot dial at once, and stops when the signal aborts', async () => {
    expect(await outcome('not a url')).toMatchObject({ ok: false, failure: { kind: 'invalid-url' } });
    expect(await outcome('ftp://127.0.0.1/')).toMatchObject({ ok: false, failure: { kind: 'invalid-url', message: expect.stringContaining('protocol') } });
    expect(await outcome('ws://127.0.0.1/#part')).toMatchObject({ ok: false, failure: { kind: 'invalid-url' } });

    expect(await outcome('ws://127.0.0.1:9/', { signal: AbortSignal.abort() })).toEqual({ ok: false, failure: { kind: 'aborted' } });
    const port = await tcpServer((s) => s.on('error', () => {}));
    const controller = new AbortController();
    const pending = outcome(`ws://127.0.0.1:${port}/`, { signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ ok: false, failure: { kind: 'aborted' } });
  });

  it('gives the attempt up when its socket is terminated', async () => {
    const port = await tcpServer((s) => s.on('error', () => {}));
    let socket: WebSocket | undefined;
    const pending = new Promise<DialOutcome>((resolve) => {
      const dialling = dial(`ws://127.0.0.1:${port}/`, OPTIONS, resolve);
      if (dialling.ok) socket = dialling.socket;
    });
    socket?.terminate();
    expect(await pending).toMatchObject({ ok: false, failure: { kind: 'error', message: 'WebSocket was closed before the connection was established' } });
  });
});
