import { spawn } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { junitClasses } from '../../scripts/android/host.js';
import { selfSignedCertificate } from './proxy.js';
import { hostBuild, requireJdk, skipAndroid } from './support.js';


/** Echo and scripted behaviours for the core's WebSocket client (WebSocketClientTest.java). */
function scripted(wss: WebSocketServer): void {
  // How each tagged connection (?id=…) was closed by the client, for the client's test to ask.
  const closes = new Map<string, string>();
  wss.on('connection', (ws: WebSocket, req) => {
    const url = new URL(req.url ?? '/', 'http://x');
    // A peer that stops reading after the upgrade: the client's writes end up blocked.
    if (url.pathname === '/stall') return (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const id = url.searchParams.get('id') ?? '';
    ws.on('close', (code, reason) => {
      closes.set(id, `${code} ${reason.toString('utf8')}`);
    });
    ws.on('message', (data, isBinary) => {
      const buf = data as Buffer;
      if (isBinary) return ws.send(buf, { binary: true });
      const text = buf.toString('utf8');
      if (text === 'fragment') {
        ws.send('hello, ', { fin: false });
        ws.send('fragmented ', { fin: false });
        ws.send('world', { fin: true });
      } else if (text === 'ping-me') {
        ws.once('pong', () => ws.send('pong-received'));
        ws.ping();
      } else if (text === 'close-4001') {
        ws.close(4001, 'revoked');
      } else if (text.startsWith('last-close ')) {
        ws.send(closes.get(text.slice('last-close '.length)) ?? 'none');
      } else if (text === 'bad-utf8') {
        ws.send(Buffer.from([0xc3, 0x28]), { binary: false });
      } else if (text === 'send-2000') {
        ws.send('x'.repeat(2000));
      } else {
        ws.send(text);
      }
    });
  });
}

/** Answers the upgrade properly, then sends a masked frame, which no server may do. */
function maskingServer(): net.Server {
  return net.createServer((socket) => {
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const key = /sec-websocket-key: *(.+)\r\n/i.exec(head)?.[1]?.trim() ?? '';
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
      socket.write(Buffer.from([0x81, 0x82, 1, 2, 3, 4, 0x69 ^ 1, 0x69 ^ 2]));
      head = '';
    });
    socket.on('error', () => undefined);
  });
}

/** Refuses every upgrade with 401 and the contract's error body, as the gateway does for a bad token. */
function refusingServer(): Server {
  const server = createHttpServer((_req, res) => res.writeHead(404).end());
  server.on('upgrade', (_req, socket) => {
    const body = JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'The device token is unknown or revoked' } });
    socket.end(`HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  return server;
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function runJava(classpath: string[], args: string[], env: Record<string, string>): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(requireJdk().java, ['-cp', classpath.join(':'), ...args], { env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

/** The JUnit tests of the app's core (android/core/test, android/jvm/test), one run per class. */
describe.skipIf(skipAndroid)("JUnit tests of the app's core", () => {
  const servers: net.Server[] = [];
  const socketServers: WebSocketServer[] = [];
  const env: Record<string, string> = {};
  let classpath: string[] = [];

  beforeAll(async () => {
    classpath = hostBuild().testRuntime;
    const echo = createHttpServer();
    const cert = selfSignedCertificate('DNS:localhost');
    const secure = createHttpsServer({ key: cert.key, cert: cert.cert });
    for (const server of [echo, secure]) {
      const wss = new WebSocketServer({ server, perMessageDeflate: false });
      scripted(wss);
      socketServers.push(wss);
    }
    const masking = maskingServer();
    const refusing = refusingServer();
    servers.push(echo, secure, masking, refusing);
    env['WS_ECHO_URL'] = `ws://127.0.0.1:${await listen(echo)}/echo`;
    env['WSS_PORT'] = String(await listen(secure));
    env['WSS_TRUST'] = cert.pemFile;
    env['WS_RAW_URL'] = `ws://127.0.0.1:${await listen(masking)}/`;
    env['WS_REFUSE_URL'] = `ws://127.0.0.1:${await listen(refusing)}/v1/phone`;
  });

  afterAll(async () => {
    // Upgraded sockets (the stalled one too) are the WebSocket servers', not the HTTP servers'.
    for (const wss of socketServers) for (const client of wss.clients) client.terminate();
    for (const s of servers) {
      (s as Server).closeAllConnections?.();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });

  const classes = skipAndroid ? [] : junitClasses();
  it('finds the JUnit classes', () => {
    expect(classes.length).toBeGreaterThanOrEqual(10);
  });

  it.each(classes)('%s', async (name) => {
    const { status, output } = await runJava(classpath, ['org.junit.runner.JUnitCore', name], env);
    expect(status, output).toBe(0);
    expect(output).toMatch(/OK \(\d+ tests?\)/);
    expect(output).not.toMatch(/OK \(0 tests\)/);
  }, 120_000);
});
