import { describe, expect, it } from 'vitest';
import { FRAME_BYTES } from '../../src/audio/index.js';
import { CLOSE_TOO_SLOW } from '../../src/socket-writes.js';
import { TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { scrape } from '../helpers/metrics.js';
import { callInState, until, getCall, testScope, type RawPhone } from '../helpers/phones.js';
import { agent, liveRawCall, openMedia, rawPhoneCall, streamInfo, type PeerSocket } from './helpers.js';

const t = testScope();

/**
 * Far more than the loopback's kernel buffers hold (about 4 MB here): a consumer that reads
 * nothing falls behind by more than a second only once the kernel holds no more.
 */
const FLOOD_FRAMES = 20_000;

function flood(phone: RawPhone): void {
  const frame = Buffer.alloc(FRAME_BYTES, 3);
  for (let i = 0; i < FLOOD_FRAMES; i++) phone.ws.send(frame, { binary: true });
}

async function mediaSocket(g: TestGateway, callId: string, options: Parameters<typeof openMedia>[3] = {}): Promise<PeerSocket> {
  const outcome = await openMedia(g, callId, { 'x-api-key': TEST_API_KEY }, options);
  if (!outcome.ok) throw new Error(`media socket refused: ${outcome.status} ${JSON.stringify(outcome.body)}`);
  t.defer(() => outcome.peer.close());
  await outcome.peer.message((m) => m.type === 'start');
  return outcome.peer;
}

describe('back-pressure on the sockets that carry call audio', () => {
  it('cuts off a media client that stops reading, with close code 4008 and the reason, and the call goes on', async () => {
    const g = await t.gateway({ captureLogs: true });
    const { phone, callId } = await rawPhoneCall(t, g);
    const listener = await mediaSocket(g, callId);
    const reader = await mediaSocket(g, callId);
    listener.ws.pause();

    // In steps the reading client keeps up with, so only the one that stopped reading falls behind
    // (one burst of 20,000 frames can leave even a reading client over a second behind on a busy machine).
    const frame = Buffer.alloc(FRAME_BYTES, 3);
    for (let sent = 0; sent < FLOOD_FRAMES; ) {
      for (const end = sent + 500; sent < end; sent++) phone.ws.send(frame, { binary: true });
      await reader.frames(sent, 60_000);
    }
    await until(async () => g.logs.filter((l) => l.includes('media socket cut off')), (lines) => lines.length > 0, { what: 'the slow client cut off', timeoutMs: 60_000 });
    // The frame that found it behind, and those after it until its socket closes, are counted as dropped.
    expect((await scrape(g)).value('voice_gateway_audio_frames_dropped_total', { reason: 'consumer_gone' })).toBeGreaterThan(0);
    // Only the client that stopped reading: the other one heard every frame.
    await reader.frames(FLOOD_FRAMES, 60_000);
    expect(reader.open).toBe(true);

    // The close frame waits behind the audio it did not read; a client that reads again gets it.
    listener.ws.resume();
    const closed = await listener.closed;
    expect(closed.code).toBe(CLOSE_TOO_SLOW);
    expect(closed.reason).toMatch(/too slow/);
    expect(listener.binary.items.length).toBeLessThan(FLOOD_FRAMES);
    expect(g.logs.filter((l) => l.includes('media socket cut off'))).toHaveLength(1);
    expect((await getCall(g, callId)).state).toBe('active');
  }, 90_000);

  it('fails the stream of an agent that stops reading, and hangs up the call', async () => {
    const g = await t.gateway();
    const { phone, callId } = await rawPhoneCall(t, g);
    const a = await agent(t);
    expect((await g.api('POST', `/v1/calls/${callId}/stream`, { url: a.url })).status).toBe(202);
    const conn = await a.connection();
    await conn.message((m) => m.type === 'start');
    conn.ws.pause();

    flood(phone);
    const hangup = await phone.next((m) => m.type === 'command' && m.action === 'hangup', 60_000);
    expect(hangup.callId).toBe(callId);
    const info = await streamInfo(g, callId);
    expect(info.status).toBe('error');
    expect(info.error).toMatch(/the agent fell more than 1 s behind/);
  }, 90_000);

  it('finds an agent that answers no ping within pongTimeoutMs: stream error, call hung up', async () => {
    const a = await agent(t, { autoPong: false });
    const g = await t.gateway({ timings: { audioPingIntervalMs: 60, pongTimeoutMs: 60 } });
    const { phone, callId } = await rawPhoneCall(t, g);
    expect((await g.api('POST', `/v1/calls/${callId}/stream`, { url: a.url })).status).toBe(202);
    const conn = await a.connection();
    await conn.message((m) => m.type === 'start');

    await phone.next((m) => m.type === 'command' && m.action === 'hangup');
    const info = await streamInfo(g, callId);
    expect(info.status).toBe('error');
    expect(info.error).toMatch(/did not answer a ping/);
    expect((await conn.closed).code).toBe(1006);
  });

  it('keeps an agent that answers its pings', async () => {
    // A ping every 20 ms, the next only once the last was answered; the deadline is long enough that a
    // stall of the test's process (the pong waits unread, the deadline's timer runs first) is no miss.
    const { g, phone, conn, call } = await liveRawCall(t, {}, { timings: { audioPingIntervalMs: 20, pongTimeoutMs: 1000 } });
    let pings = 0;
    conn.ws.on('ping', () => (pings += 1));
    await until(async () => pings, (n) => n >= 5, { what: 'five pings answered' });
    expect((await streamInfo(g, call.id)).status).toBe('live');
    expect(phone.commands.some((c) => c.action === 'hangup')).toBe(false);
  });

  it('drops a media client that answers no ping within pongTimeoutMs', async () => {
    const g = await t.gateway({ captureLogs: true, timings: { audioPingIntervalMs: 60, pongTimeoutMs: 60 } });
    const { callId } = await rawPhoneCall(t, g);
    const silent = await mediaSocket(g, callId, { autoPong: false });
    expect((await silent.closed).code).toBe(1006);
    expect(g.logs.some((l) => l.includes('media socket cut off') && l.includes('did not answer a ping'))).toBe(true);
    await callInState(g, callId, 'active');
  });
});
