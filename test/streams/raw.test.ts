import { describe, expect, it } from 'vitest';
import { FRAME_BYTES, PCM_FORMAT } from '../../src/audio/index.js';
import { PHONE_BUFFER_FRAMES } from '../../src/audio/pacer.js';
import { readStamp } from '../../src/simulator/index.js';
import { callInState, until, testScope } from '../helpers/phones.js';
import { agent, constantPcm, liveRawCall, nonZeroSamples, placeCall, rampPcm, samples, streamInfo, TONE, toneFrames, unstamped } from './helpers.js';

const t = testScope();

describe('raw stream format', () => {
  it('sends the start message, the phone voice as 640-byte frames, and stop + close when the remote party hangs up', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { audio: TONE, stampFrames: true, dial: { outcome: 'answer', ringMs: 20 } });
    const a = await agent(t);
    const { call } = await placeCall(g, phone, { to: '+15550111', stream: { url: a.url, parameters: { tenant: 'acme', lang: 'de' } } });

    const conn = await a.connection();
    const start = await conn.message((m) => m.type === 'start');
    expect(conn.texts[0] && JSON.parse(conn.texts[0])).toEqual(start);
    expect(start).toEqual({
      type: 'start',
      callId: call.id,
      direction: 'outgoing',
      remoteNumber: '+15550111',
      deviceId: phone.deviceId,
      tenant: 'acme',
      lang: 'de',
      format: { encoding: 'pcm_s16le', sampleRate: 16000, channels: 1, frameMs: 20 },
    });
    expect(start.format).toEqual(PCM_FORMAT);
    expect((await streamInfo(g, call.id)).status).toBe('live');

    // The voice of the remote party: every frame is 640 bytes, in order, byte-identical to what the phone sent.
    const frames = await conn.frames(25);
    const tone = toneFrames(phone.framesSent + 50);
    let prevSeq = -1;
    for (const frame of frames.slice(0, 25)) {
      expect(frame.length).toBe(FRAME_BYTES);
      const stamp = readStamp(frame);
      expect(stamp, 'frame carries the phone stamp unchanged').not.toBeNull();
      if (prevSeq >= 0) expect(stamp!.seq).toBe(prevSeq + 1);
      prevSeq = stamp!.seq;
      expect(unstamped(frame).equals(unstamped(tone[stamp!.seq]!))).toBe(true);
    }
    // The start message came before any frame.
    expect(conn.json.items[0]!.index).toBe(0);

    phone.remoteHangup();
    const stop = await conn.message((m) => m.type === 'stop');
    expect(stop).toEqual({ type: 'stop', callId: call.id });
    expect((await conn.closed).code).toBe(1000);
    // stop is the last message.
    const stopItem = conn.json.items.find((i) => i.msg.type === 'stop')!;
    expect(conn.binary.items.every((b) => b.index < stopItem.index)).toBe(true);
    await callInState(g, call.id, 'ended');
    expect(await streamInfo(g, call.id)).toMatchObject({ status: 'ended', stream: { url: a.url } });
  });

  it('plays agent binary of any (odd) length to the phone in order, byte for byte', async () => {
    const { phone, conn } = await liveRawCall(t);

    // 2000 samples (4000 bytes) cut into chunks of odd lengths, so samples straddle messages.
    const pcm = rampPcm(2000);
    const cuts = [333, 1001, 7, 1, 2001, 657];
    expect(cuts.reduce((x, y) => x + y)).toBe(pcm.length);
    let at = 0;
    for (const n of cuts) {
      conn.sendBinary(pcm.subarray(at, at + n));
      at += n;
    }
    await phone.waitFor((s) => nonZeroSamples(s.receivedAudio()).length >= 2000, 5000);
    const got = phone.receivedAudio();
    expect(phone.received.oddSizedFrames).toBe(0);
    expect(got.length % FRAME_BYTES).toBe(0);
    // Silence may pad a frame the agent left half full; the agent's samples arrive unchanged and in order.
    expect(nonZeroSamples(got)).toEqual(samples(pcm));
    expect(got.subarray(0, 640).equals(pcm.subarray(0, 640))).toBe(true);
  });

  it('carries the call audio both ways over the phone\'s new socket after it reconnects mid-call', async () => {
    const { g, phone, conn, call } = await liveRawCall(t, { audio: TONE, stampFrames: true });
    await conn.frames(5);
    conn.sendBinary(constantPcm(320 * 3, 400));
    await phone.waitFor((s) => samples(s.receivedAudio()).includes(400), 5000);

    // The network drops; the phone comes back on a new socket and its hello names the call.
    const back = phone.waitFor('connected');
    phone.dropSocket();
    await back;
    const seen = conn.binary.items.length;
    // The frames the phone sends on its new socket reach the agent...
    const after = await conn.frames(seen + 5);
    const stamps = after.slice(seen).map((f) => readStamp(f)!.seq);
    expect(stamps).toEqual([...stamps].sort((x, y) => x - y));
    // ...and what the agent sends now is played on the new socket.
    conn.sendBinary(constantPcm(320 * 3, -900));
    await phone.waitFor((s) => samples(s.receivedAudio()).includes(-900), 5000);
    expect((await g.api<{ call: { state: string } }>('GET', `/v1/calls/${call.id}`)).body.call.state).toBe('active');
  });

  it('{type:"clear"} drops the audio not yet played', async () => {
    const { phone, conn } = await liveRawCall(t);

    conn.sendBinary(constantPcm(16000 * 3, 500)); // 3 s = 150 frames
    await phone.waitFor((s) => s.received.frames >= 5, 5000);
    conn.send({ type: 'clear' });
    // Audio sent after the clear is heard next: the 3 s before it were dropped.
    conn.sendBinary(constantPcm(320 * 5, -700));
    await phone.waitFor((s) => samples(s.receivedAudio()).includes(-700), 5000);
    const got = samples(phone.receivedAudio());
    const firstNew = got.indexOf(-700);
    expect(firstNew / 320).toBeLessThan(40); // well before the 150 frames of the first burst
    expect(got.slice(firstNew).every((v) => v === -700 || v === 0)).toBe(true);
    expect(got.slice(0, firstNew).every((v) => v === 500 || v === 0)).toBe(true);
    const expected = firstNew / 320 + 5;
    await phone.waitFor((s) => s.received.frames >= expected, 5000);
    // Nothing of the dropped audio comes afterwards either: a bounded 300 ms look at the phone.
    const quietUntil = performance.now() + 300;
    await until(
      async () => phone.received.frames,
      (n) => n !== expected || performance.now() > quietUntil,
      { what: 'play-out stays idle', intervalMs: 20 },
    );
    expect(phone.received.frames).toBe(expected);
  });
});

describe('pacing', () => {
  it('hands the phone one 640-byte frame per 20 ms, even when 2 s of audio arrive at once', async () => {
    const { phone, conn } = await liveRawCall(t);

    conn.sendBinary(constantPcm(16000 * 2, 1000)); // 2 s = 100 frames
    await phone.waitFor((s) => s.received.frames >= 100, 6000);
    const { arrivalTimes, oddSizedFrames, frames } = phone.received;
    expect(frames).toBe(100);
    expect(oddSizedFrames).toBe(0);
    const span = arrivalTimes[99]! - arrivalTimes[0]!;
    expect(span).toBeGreaterThan(1800);
    expect(span).toBeLessThan(2400);
    const mean = span / 99;
    expect(mean).toBeGreaterThan(18);
    expect(mean).toBeLessThan(22);
    // No burst: frames come one per 20 ms (a stall of this process may bunch a few of them when they
    // are read, so the typical gap, not the smallest, is what shows the pacing).
    const gaps = arrivalTimes.slice(1, 100).map((at, i) => at - arrivalTimes[i]!).sort((x, y) => x - y);
    expect(gaps[Math.floor(gaps.length / 2)]).toBeGreaterThan(15);
    expect(gaps.filter((g) => g < 5).length, 'frames read together').toBeLessThan(20);
    // And never more at once than the pacer's most (after a stall), and the frame read just before it.
    for (let i = 0; i + PHONE_BUFFER_FRAMES + 2 < arrivalTimes.length; i++) {
      expect(arrivalTimes[i + PHONE_BUFFER_FRAMES + 2]! - arrivalTimes[i]!, `frames ${i} to ${i + PHONE_BUFFER_FRAMES + 2}`).toBeGreaterThan(5);
    }
    expect(samples(phone.receivedAudio()).every((v) => v === 1000)).toBe(true);
  });
});
