import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let g: TestGateway | undefined;
afterEach(async () => {
  await g?.stop();
  g = undefined;
});

/** Sends a raw WebSocket upgrade with this request target and returns the first response's status line and body. */
function rawUpgrade(port: number, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
    });
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.split('\r\n\r\n')[1] ?? '' });
    });
  });
}

describe('WebSocket upgrades with a malformed target', () => {
  it('are refused with 400 in the error shape, and the gateway keeps serving', async () => {
    g = await startTestGateway();
    for (const target of ['/v1/calls/%E0%A4%A/media', '//', '/v1/calls/%/media']) {
      const res = await rawUpgrade(g.port, target);
      expect(res.status, target).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    }
    expect((await g.api('GET', '/health')).status).toBe(200);
  });

  it('answers an unknown WebSocket path with 404', async () => {
    g = await startTestGateway();
    const res = await rawUpgrade(g.port, '/v1/nowhere');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

/** Sends a plain request with this target and Host header; returns status and body. */
function rawRequest(port: number, target: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), body: text.split('\r\n\r\n')[1] ?? '' }));
  });
}

describe('plain requests whose Host or target makes no URL', () => {
  it('get 400 in the error shape', async () => {
    g = await startTestGateway();
    for (const host of ['[::1', 'a:99999']) {
      const res = await rawRequest(g.port, '/health', host);
      expect(res.status, host).toBe(400);
      expect(JSON.parse(res.body), host).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    }
    expect((await g.api('GET', '/health')).status).toBe(200);
  });
});
