import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { endpointUrl, pairDevice } from '../src/simulator/index.js';
import type { WebhookLoadCommand, WebhookLoadMessage } from './protocol.js';
import { api, pool } from './util.js';

/*
 * The load of `npm run bench -- --webhooks`: a webhook receiver that answers 204 after a fixed
 * delay, and raw phone sockets that report a burst of call events (phone-protocol.md section 3).
 */

const send = (msg: WebhookLoadMessage) => process.send?.(msg);

let expected = Infinity;
let received = 0;
let first = 0;
let last = 0;
const seen = new Set<string>();
let duplicates = 0;
const answerMs = Number(process.env.BENCH_ANSWER_MS ?? 50);
/** While set, requests wait here for `release`. */
let held: Array<() => void> | null = null;

function answer(res: ServerResponse): void {
  setTimeout(() => {
    res.writeHead(204).end();
    const now = Date.now();
    received++;
    if (received === 1) first = now;
    last = now;
    if (received === expected) send({ type: 'delivered', count: received, duplicates, firstAt: first, lastAt: last });
  }, answerMs);
}

const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['webhook-id'] ?? '');
    if (seen.has(id)) duplicates++;
    seen.add(id);
    if (held) held.push(() => answer(res));
    else answer(res);
  });
});
receiver.keepAliveTimeout = 30_000;

interface RawPhone {
  ws: WebSocket;
  acked: number;
}
const phones: RawPhone[] = [];
let acksExpected = Infinity;
let acks = 0;

async function connectPhones(targetUrl: string, apiKey: string, count: number): Promise<void> {
  await pool(
    Array.from({ length: count }, (_, i) => i),
    8,
    async (i) => {
      const pairing = await api(targetUrl, apiKey, 'POST', '/v1/pairing', { publicUrl: targetUrl });
      const creds = await pairDevice(targetUrl, { code: String(pairing['code']), name: `bench-${i}` });
      const ws = new WebSocket(endpointUrl(targetUrl, '/v1/phone', 'ws'), { headers: { authorization: `Bearer ${creds.deviceToken}` }, perMessageDeflate: false });
      const phone: RawPhone = { ws, acked: 0 };
      await new Promise<void>((resolve, reject) => {
        ws.once('error', reject);
        ws.on('message', (data) => {
          const msg = JSON.parse(String(data)) as { type: string };
          if (msg.type === 'welcome') resolve();
          else if (msg.type === 'event.ack') {
            phone.acked++;
            if (++acks === acksExpected) send({ type: 'burst-acked', at: Date.now() });
          }
        });
        ws.once('open', () => ws.send(JSON.stringify({ type: 'hello', appVersion: 'bench' })));
      });
      phones[i] = phone;
    },
  );
}

/** `calls` incoming calls spread over the phones, each ringing, then toggling hold, then ending. */
function burst(calls: number, eventsPerCall: number, hold: boolean): void {
  if (hold) held = [];
  acks = 0;
  received = 0;
  duplicates = 0;
  acksExpected = calls * eventsPerCall;
  expected = acksExpected;
  for (let c = 0; c < calls; c++) {
    const phone = phones[c % phones.length]!;
    const nativeCallId = `bench-${randomUUID()}`;
    for (let e = 0; e < eventsPerCall; e++) {
      const event = e === 0 ? 'call.ringing' : e === eventsPerCall - 1 ? 'call.disconnected' : e % 2 === 1 ? 'call.active' : 'call.holding';
      phone.ws.send(
        JSON.stringify({
          type: 'event',
          eventId: randomUUID(),
          event,
          nativeCallId,
          occurredAt: new Date().toISOString(),
          payload: event === 'call.disconnected' ? { cause: 'remote' } : {},
          ...(e === 0 ? { direction: 'incoming', remoteNumber: `+4930${String(c).padStart(6, '0')}` } : {}),
        }),
      );
    }
  }
}

process.on('message', (raw: unknown) => {
  const cmd = raw as WebhookLoadCommand;
  if (cmd.type === 'phones') {
    connectPhones(cmd.targetUrl, cmd.apiKey, cmd.phones).then(
      () => send({ type: 'phones-ready' }),
      (err: unknown) => send({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  } else if (cmd.type === 'burst') {
    burst(cmd.calls, cmd.eventsPerCall, cmd.hold);
    send({ type: 'burst-sent', at: Date.now() });
  } else if (cmd.type === 'release') {
    const waiting = held ?? [];
    held = null;
    for (const go of waiting) go();
  } else if (cmd.type === 'stop') {
    for (const p of phones) p.ws.terminate();
    receiver.closeAllConnections();
    receiver.close(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));

receiver.listen(0, '127.0.0.1', () => {
  send({ type: 'receiver', url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook` });
});
