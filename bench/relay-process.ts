import '../src/v8-tuning.js';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { serveTargetCommands } from './loop-delay.js';

/**
 * The baseline: a bare relay with no gateway logic. A phone connects to `/?agent=<ws url>`; the
 * relay dials that agent and forwards every message both ways as it comes (frames that arrive
 * before the agent socket opens are dropped, as the gateway does before a stream is live).
 */
const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
server.on('connection', (phone, req) => {
  const target = new URL(req.url ?? '/', 'ws://relay').searchParams.get('agent');
  if (!target) return phone.close(1008, 'agent missing');
  const agent = new WebSocket(target, { perMessageDeflate: false });
  phone.on('message', (data, isBinary) => {
    if (agent.readyState === WebSocket.OPEN) agent.send(data as Buffer, { binary: isBinary });
  });
  agent.on('message', (data, isBinary) => {
    if (phone.readyState === WebSocket.OPEN) phone.send(data as Buffer, { binary: isBinary });
  });
  agent.on('close', () => phone.close());
  agent.on('error', () => phone.terminate());
  phone.on('close', () => agent.close());
  phone.on('error', () => agent.terminate());
});
await new Promise<void>((resolve) => server.once('listening', resolve));
serveTargetCommands(
  () =>
    new Promise<void>((resolve) => {
      for (const client of server.clients) client.terminate();
      server.close(() => resolve());
    }),
);
process.send?.({ type: 'ready', url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` });
