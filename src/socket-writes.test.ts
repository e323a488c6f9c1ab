import type { Duplex } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loopbackWsServer } from '../test/helpers/ws-server.js';
import { BoundedWriter, CLOSE_TOO_SLOW, type BoundedWriterOptions, type WriteOutcome } from './socket-writes.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()?.();
});

interface Pair {
  /** The gateway's side: the accepted socket and the TCP socket under it. */
  server: WebSocket;
  transport: Duplex;
  /** The peer. */
  client: WebSocket;
  closed: Promise<{ code: number; reason: string }>;
}

/** A real WebSocket over loopback: a server on port 0 and one client. */
async function pair(): Promise<Pair> {
  const { wss, port, close } = await loopbackWsServer();
  cleanup.push(close);
  const accepted = new Promise<{ server: WebSocket; transport: Duplex }>((resolve) => wss.once('connection', (server, req) => resolve({ server, transport: req.socket })));
  const client = new WebSocket(`ws://127.0.0.1:${port}/`);
  client.on('error', () => {});
  cleanup.push(() => client.terminate());
  const closed = new Promise<{ code: number; reason: string }>((resolve) => client.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve) => client.once('open', () => resolve()));
  return { ...(await accepted), client, closed };
}

/** Writes `chunk` once a turn until the writer stops sending (at most `turns` turns). */
async function writeUntilStopped(writer: BoundedWriter, chunk: Buffer, turns: number): Promise<{ outcome: WriteOutcome; sent: number }> {
  for (let sent = 0; sent < turns; sent++) {
    const outcome = writer.write(chunk);
    if (outcome !== 'sent') return { outcome, sent };
    await nextTurn();
  }
  return { outcome: 'sent', sent: turns };
}

function writer(p: Pair, o: Partial<BoundedWriterOptions> & Pick<BoundedWriterOptions, 'cutOff'>): { writer: BoundedWriter; cutOffs: number[] } {
  const cutOffs: number[] = [];
  return { writer: new BoundedWriter(p.server, { maxBufferedBytes: 256 * 1024, onCutOff: (unsent) => cutOffs.push(unsent), ...o }), cutOffs };
}

const CHUNK = Buffer.alloc(64 * 1024, 7);

describe('BoundedWriter', () => {
  it('keeps sending to a peer that reads along, in order', async () => {
    const p = await pair();
    const { writer: w, cutOffs } = writer(p, { transport: p.transport, cutOff: { reason: 'too slow' } });
    const got: number[] = [];
    const all = new Promise<void>((resolve) =>
      p.client.on('message', (data) => {
        got.push((data as Buffer).readUInt32BE(0));
        if (got.length === 200) resolve();
      }),
    );
    for (let i = 0; i < 200; i++) {
      const frame = Buffer.alloc(16 * 1024);
      frame.writeUInt32BE(i, 0);
      expect(w.write(frame)).toBe('sent');
      // Several writes in one turn: what the turn holds is the gateway's, not the peer's slowness.
      if (i % 4 === 3) await nextTurn();
    }
    await all;
    expect(got).toEqual([...Array(200).keys()]);
    expect(cutOffs).toEqual([]);
  });

  it('closes a held socket whose peer stops reading with 4008 and the reason, once, and sends nothing after', async () => {
    const p = await pair();
    const { writer: w, cutOffs } = writer(p, { transport: p.transport, cutOff: { reason: 'too slow: test' } });
    p.client.pause();
    const { outcome, sent } = await writeUntilStopped(w, CHUNK, 4000);
    expect(outcome).toBe('cut-off');
    expect(sent).toBeGreaterThan(4);
    expect(cutOffs).toHaveLength(1);
    expect(cutOffs[0]).toBeGreaterThan(256 * 1024);
    expect(w.write(CHUNK)).toBe('not-open');
    expect(cutOffs).toHaveLength(1);
    // A peer that reads again gets everything sent, then the close frame behind it.
    let received = 0;
    p.client.on('message', () => (received += 1));
    p.client.resume();
    expect(await p.closed).toEqual({ code: CLOSE_TOO_SLOW, reason: 'too slow: test' });
    expect(received).toBe(sent);
  });

  it('terminates an unheld socket whose peer stops reading, counting what the WebSocket has not sent', async () => {
    const p = await pair();
    const { writer: w, cutOffs } = writer(p, { cutOff: 'terminate' });
    p.client.pause();
    const { outcome } = await writeUntilStopped(w, CHUNK, 4000);
    expect(outcome).toBe('cut-off');
    expect(cutOffs).toHaveLength(1);
    expect(cutOffs[0]).toBeGreaterThan(256 * 1024);
    expect(w.write(CHUNK)).toBe('not-open');
    p.client.resume();
    // No close frame: the connection just ends.
    expect((await p.closed).code).toBe(1006);
  });

  it('sends nothing to a socket that is no longer open, and cuts nobody off for it', async () => {
    const p = await pair();
    const { writer: w, cutOffs } = writer(p, { transport: p.transport, cutOff: { reason: 'too slow' } });
    p.server.close(1000, 'bye');
    expect(w.write(CHUNK)).toBe('not-open');
    expect(await p.closed).toEqual({ code: 1000, reason: 'bye' });
    expect(cutOffs).toEqual([]);
  });
});
