import { describe, expect, it } from 'vitest';
import { encodeMulawSample, FRAME_MS, MulawUpsampler, pcm16kToMulaw8k } from '../../src/audio/index.js';
import type { PhoneSimulator } from '../../src/simulator/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { callInState, until, testScope } from '../helpers/phones.js';
import { agent, placeCall, samples, streamInfo, TONE, toneFrames, type Json, type PeerSocket } from './helpers.js';

const t = testScope();

/** 8 kHz mu-law of a ramp, `chunks` chunks of 160 bytes (20 ms each). */
function mulawRamp(chunks: number, seed = 0): Buffer[] {
  const out: Buffer[] = [];
  for (let c = 0; c < chunks; c++) {
    const chunk = Buffer.alloc(160);
    for (let i = 0; i < 160; i++) chunk[i] = encodeMulawSample(((seed + (c * 160 + i) * 97) % 20000) - 10000);
    out.push(chunk);
  }
  return out;
}

const media = (payload: Buffer, streamSid = 'MZ-anything'): Json => ({ event: 'media', streamSid, media: { payload: payload.toString('base64') } });

async function vendorCall(phoneOptions: Parameters<typeof t.phone>[1] = {}, parameters?: Record<string, string>): Promise<{ g: TestGateway; phone: PhoneSimulator; conn: PeerSocket; callId: string; agentUrl: string; start: Json }> {
  const g = await t.gateway();
  const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 }, ...phoneOptions });
  const a = await agent(t);
  const { call } = await placeCall(g, phone, { to: '+15550122', stream: { url: a.url, format: 'vendor', ...(parameters ? { parameters } : {}) } });
  const conn = await a.connection();
  const start = await conn.message((m) => m.event === 'start');
  await callInState(g, call.id, 'active');
  return { g, phone, conn, callId: call.id, agentUrl: a.url, start };
}

describe('vendor stream format (Twilio Media Streams)', () => {
  it('sends connected, start, media (160-byte mu-law, string counters) and stop, numbering every message after connected', async () => {
    const { g, phone, conn, callId, start } = await vendorCall({ audio: TONE }, { tenant: 'acme' });
    expect(conn.messages[0]).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    const streamSid = start.streamSid as string;
    expect(typeof streamSid).toBe('string');
    expect(streamSid.length).toBeGreaterThan(0);
    expect(start).toEqual({
      event: 'start',
      sequenceNumber: '1',
      streamSid,
      start: {
        streamSid,
        accountSid: 'local',
        callSid: callId,
        tracks: ['inbound'],
        customParameters: { callId, direction: 'outgoing', remoteNumber: '+15550122', deviceId: phone.deviceId, tenant: 'acme' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });

    // 20 media messages of the phone's voice.
    await conn.message((m) => m.event === 'media' && m.media?.chunk === '20');
    const medias = conn.messages.filter((m) => m.event === 'media');
    const tone = toneFrames(phone.framesSent + 10).map((f) => pcm16kToMulaw8k(f));
    const first = Buffer.from(medias[0]!.media.payload as string, 'base64');
    const offset = tone.findIndex((m) => m.equals(first));
    expect(offset, 'the first payload is the mu-law of one of the frames the phone sent').toBeGreaterThanOrEqual(0);
    medias.slice(0, 20).forEach((m, i) => {
      expect(Object.keys(m).sort()).toEqual(['event', 'media', 'sequenceNumber', 'streamSid']);
      expect(m.streamSid).toBe(streamSid);
      expect(m.media.track).toBe('inbound');
      expect(m.media.chunk).toBe(String(i + 1));
      expect(m.media.timestamp).toBe(String(i * 20));
      expect(typeof m.sequenceNumber).toBe('string');
      const payload = Buffer.from(m.media.payload as string, 'base64');
      expect(payload.length).toBe(160);
      // 16 kHz -> 8 kHz by averaging pairs, then G.711 mu-law (rule 4): exactly the tone, frame after frame.
      expect(payload.equals(tone[offset + i]!)).toBe(true);
    });

    // Marks in between are numbered too.
    conn.send({ event: 'mark', streamSid, mark: { name: 'between' } });
    await conn.message((m) => m.event === 'mark');
    await conn.message((m) => m.event === 'media' && Number(m.media?.chunk) >= 25);

    phone.remoteHangup();
    const stop = await conn.message((m) => m.event === 'stop');
    expect(stop).toEqual({ event: 'stop', sequenceNumber: stop.sequenceNumber, streamSid, stop: { accountSid: 'local', callSid: callId } });
    expect((await conn.closed).code).toBe(1000);
    // sequenceNumber counts every message after connected: 1, 2, 3, ... with no gap, across media, mark and stop.
    const numbered = conn.messages.slice(1);
    expect(numbered.map((m) => m.sequenceNumber)).toEqual(numbered.map((_, i) => String(i + 1)));
    expect(numbered[numbered.length - 1]!.event).toBe('stop');
    expect(numbered.map((m) => m.event)).toContain('mark');
    expect((await streamInfo(g, callId)).status).toBe('ended');
  });

  it('plays agent media (base64 mu-law, any streamSid) to the phone as 16 kHz PCM by linear interpolation', async () => {
    const { phone, conn } = await vendorCall();
    const chunks = mulawRamp(10);
    for (const [i, c] of chunks.entries()) conn.send(media(c, i % 2 ? 'MZwrong' : 'whatever'));
    await phone.waitFor((s) => s.received.frames >= 10, 5000);
    const expected = new MulawUpsampler().push(Buffer.concat(chunks));
    expect(expected.length).toBe(10 * 640);
    expect(phone.received.oddSizedFrames).toBe(0);
    expect(phone.receivedAudio().equals(expected)).toBe(true);
    // Spot-check the interpolation itself: odd samples are the decoded input, even ones the mean of neighbours.
    const s = samples(phone.receivedAudio());
    expect(s[4]).toBe((s[3]! + s[5]!) >> 1);
  });

  it('echoes no mark whose audio never played when the call ends: the agent gets stop, not a false "played"', async () => {
    const { phone, conn } = await vendorCall();
    phone.resetReceived();
    // 2 s of audio, then a mark; the caller hangs up after a few frames of it.
    for (const c of mulawRamp(100, 3)) conn.send(media(c));
    conn.send({ event: 'mark', streamSid: 'x', mark: { name: 'heard-it-all' } });
    await phone.waitFor((s) => s.received.frames >= 5, 3000);
    phone.remoteHangup();
    await conn.message((m) => m.event === 'stop', 5000);
    expect(phone.received.frames).toBeLessThan(100);
    expect(conn.messages.filter((m) => m.event === 'mark')).toEqual([]);
  });

  it('echoes a mark only after the audio before it has played, at once when nothing is pending, and at once on clear', async () => {
    const { phone, conn } = await vendorCall();
    phone.resetReceived();

    // 1 s of audio, then a mark: it comes back after ≈50 frames have reached the phone, not before.
    for (const c of mulawRamp(50, 1)) conn.send(media(c));
    conn.send({ event: 'mark', streamSid: 'ignored', mark: { name: 'after-1s' } });
    const sentAt = performance.now();
    const echo = await conn.messageAt((m) => m.event === 'mark' && m.mark?.name === 'after-1s', 5000);
    await phone.waitFor((s) => s.received.frames >= 50, 2000);
    // The echo leaves in the turn that writes the mark's last frame; frames written in that turn may
    // be read after it, so those arriving within a frame's time of it count as before.
    const framesBefore = phone.received.arrivalTimes.filter((a) => a <= echo.at + FRAME_MS).length;
    expect(framesBefore).toBeGreaterThanOrEqual(45);
    expect(framesBefore).toBeLessThanOrEqual(50);
    expect(echo.at - sentAt).toBeGreaterThan(850);
    expect(echo.msg).toMatchObject({ event: 'mark', mark: { name: 'after-1s' } });

    // Nothing pending: at once.
    const idleFrames = phone.received.frames;
    const t0 = performance.now();
    conn.send({ event: 'mark', streamSid: 'x', mark: { name: 'idle' } });
    await conn.message((m) => m.event === 'mark' && m.mark?.name === 'idle', 2000);
    expect(performance.now() - t0).toBeLessThan(300);
    expect(phone.received.frames).toBe(idleFrames);

    // clear: pending marks come back at once, the rest of the audio is dropped.
    phone.resetReceived();
    for (const c of mulawRamp(100, 2)) conn.send(media(c));
    conn.send({ event: 'mark', streamSid: 'x', mark: { name: 'pending' } });
    await phone.waitFor((s) => s.received.frames >= 5, 3000);
    conn.send({ event: 'clear', streamSid: 'x' });
    const cleared = await conn.messageAt((m) => m.event === 'mark' && m.mark?.name === 'pending', 2000);
    expect(phone.received.arrivalTimes.filter((a) => a <= cleared.at).length).toBeLessThan(40);
    // A mark after the clear comes back at once too: nothing is pending any more.
    conn.send({ event: 'mark', streamSid: 'x', mark: { name: 'after-clear' } });
    await conn.message((m) => m.event === 'mark' && m.mark?.name === 'after-clear', 1000);
    expect(phone.received.frames).toBeLessThan(45);
  });

  it('echoes every mark of a 30 s answer sent with one mark per 20 ms chunk, the end-of-response mark last', async () => {
    // The OpenAI Agents SDK's Twilio transport marks every audio chunk, then the end of the response.
    const { g, conn, callId } = await vendorCall();
    const chunks = mulawRamp(1500);
    chunks.forEach((c, i) => {
      conn.send(media(c));
      conn.send({ event: 'mark', streamSid: 'x', mark: { name: `chunk-${i}` } });
    });
    conn.send({ event: 'mark', streamSid: 'x', mark: { name: 'response-done' } });
    // The caller interrupts: the rest of the answer is dropped and every mark comes back at once.
    conn.send({ event: 'clear', streamSid: 'x' });
    await conn.message((m) => m.event === 'mark' && m.mark?.name === 'response-done', 10_000);
    const echoed = conn.messages.filter((m) => m.event === 'mark').map((m) => m.mark?.name as string);
    expect(echoed).toEqual([...chunks.map((_, i) => `chunk-${i}`), 'response-done']);
    expect((await streamInfo(g, callId)).status).toBe('live');
  });

  it('fails the stream of an agent that parks more marks than its queued audio allows, echoing the ones it kept', async () => {
    const { g, phone, conn, callId } = await vendorCall();
    // 1 s of audio queued allows 1000 marks plus one per 10 ms of it.
    for (const c of mulawRamp(50)) conn.send(media(c));
    for (let i = 0; i < 1500; i++) conn.send({ event: 'mark', streamSid: 'x', mark: { name: `m${i}` } });
    const info = await until(() => streamInfo(g, callId), (i) => i.status === 'error', { what: 'stream error' });
    expect(info.error).toMatch(/more marks than the gateway keeps: \d+ were waiting for [\d.]+ s of audio \(at most 1000 plus one per 10 ms/);
    await phone.waitFor((s) => s.commands.some((c) => c.action === 'hangup'), 3000);
    await conn.closed;
    // No mark is lost without a word: the ones kept were echoed before the socket closed.
    const echoed = conn.messages.filter((m) => m.event === 'mark').map((m) => m.mark?.name as string);
    expect(echoed.length).toBeGreaterThanOrEqual(1000);
    expect(echoed.length).toBeLessThan(1500);
    expect(echoed).toEqual(Array.from({ length: echoed.length }, (_, i) => `m${i}`));
  });

  it('skips a mark whose name is over 256 characters', async () => {
    const { conn } = await vendorCall();
    for (const c of mulawRamp(10)) conn.send(media(c));
    conn.send({ event: 'mark', streamSid: 'x', mark: { name: 'n'.repeat(257) } });
    conn.send({ event: 'mark', streamSid: 'x', mark: { name: 'short' } });
    conn.send({ event: 'clear', streamSid: 'x' });
    await conn.message((m) => m.event === 'mark' && m.mark?.name === 'short');
    expect(conn.messages.filter((m) => m.event === 'mark').map((m) => m.mark?.name)).toEqual(['short']);
  });

  it('clear also resets the 8 to 16 kHz converter: the next answer starts without the last sample of the dropped one', async () => {
    const { phone, conn } = await vendorCall();
    const loud = Buffer.alloc(160, encodeMulawSample(20_000));
    for (let i = 0; i < 100; i++) conn.send(media(loud));
    await phone.waitFor((s) => s.received.frames >= 3, 3000);
    conn.send({ event: 'clear', streamSid: 'x' });
    const next = mulawRamp(3, 7);
    for (const c of next) conn.send(media(c));
    const expected = new MulawUpsampler().push(Buffer.concat(next));
    await phone.waitFor((s) => s.receivedAudio().subarray(-expected.length).equals(expected), 3000);
  });

  it('skips malformed agent messages and goes on streaming', async () => {
    const { g, phone, conn, callId } = await vendorCall();
    conn.ws.send('not json at all');
    conn.ws.send('[1, 2, 3]');
    conn.ws.send('"just a string"');
    conn.send({ event: 'media', streamSid: 'x' });
    conn.send({ event: 'media', streamSid: 'x', media: { payload: 42 } });
    conn.send({ event: 'mark', streamSid: 'x', mark: {} });
    conn.send({ event: 'bogus' });
    conn.send({ nothing: true });
    conn.sendBinary(Buffer.alloc(640, 1));
    const chunks = mulawRamp(5, 3);
    for (const c of chunks) conn.send(media(c));
    conn.send({ event: 'mark', streamSid: 'x', mark: { name: 'still-alive' } });
    await conn.message((m) => m.event === 'mark' && m.mark?.name === 'still-alive', 3000);
    await phone.waitFor((s) => s.received.frames >= 5, 2000);
    expect(phone.receivedAudio().equals(new MulawUpsampler().push(Buffer.concat(chunks)))).toBe(true);
    expect(conn.open).toBe(true);
    expect((await streamInfo(g, callId)).status).toBe('live');
    expect((await g.api('GET', `/v1/calls/${callId}`)).body.call.state).toBe('active');
  });
});
