import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

/**
 * A real WebSocket server on a loopback port of its own, for the socket unit tests; `close` ends
 * its clients and the server (register it with the test's cleanup).
 */
export async function loopbackWsServer(): Promise<{ wss: WebSocketServer; port: number; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      for (const c of wss.clients) c.terminate();
      wss.close(() => resolve());
    });
  return { wss, port: (wss.address() as AddressInfo).port, close };
}
