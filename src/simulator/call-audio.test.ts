import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { zeroCrossings } from '../../test/fakes/fake-gateway.js';
import { gw, phone, useFakeGateway, waitEvent } from '../../test/helpers/fake-gateway-scope.js';
import { FRAME_BYTES } from '../audio/constants.js';
import { readStamp } from './index.js';
import { encodeWav } from './wav.js';

/** PhoneSimulator against a fake gateway: the audio it sends into a call and records from it. */
useFakeGateway();

describe('audio', () => {
  const frameCount = (): number => gw.current.frames.length;

  it('sends 640-byte frames at 50 per second carrying the tone', async () => {
    const sim = phone({ audio: { kind: 'tone', frequency: 440 }, dial: { outcome: 'answer', ringMs: 0 } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await gw.until(() => (frameCount() >= 26 ? true : undefined));
    const { frames, frameTimes } = gw.current;
    expect(frames.every((f) => f.length === FRAME_BYTES)).toBe(true);
    const span = (frameTimes[25] ?? 0) - (frameTimes[0] ?? 0);
    expect(span).toBeGreaterThan(25 * 20 * 0.85);
    expect(span).toBeLessThan(25 * 20 * 1.25);
    const pcm = Buffer.concat(frames.slice(0, 25)); // 0.5 s
    expect(zeroCrossings(pcm)).toBeGreaterThanOrEqual(438);
    expect(zeroCrossings(pcm)).toBeLessThanOrEqual(442);
    let peak = 0;
    for (let i = 0; i < pcm.length; i += 2) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i)));
    expect(peak / 32767).toBeCloseTo(0.3, 2);
    expect(sim.framesSent).toBeGreaterThanOrEqual(26);
  });

  it('sends no audio while the call is held, and none before it is active', async () => {
    const sim = phone({ audio: { kind: 'silence' }, dial: { outcome: 'manual' } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await waitEvent('call.dialing');
    expect(frameCount()).toBe(0);
    sim.remoteAnswer();
    await gw.until(() => (frameCount() >= 2 ? true : undefined));
    expect(gw.current.frames[0]?.equals(Buffer.alloc(FRAME_BYTES))).toBe(true);
    await gw.command('hold', 'call-1');
    const sent = sim.framesSent;
    await sim.waitFor((s) => s.currentCall?.state === 'held');
    await gw.command('dtmf', 'call-1', { digits: '1' }); // a round trip later: still no new frames
    expect(sim.framesSent).toBe(sent);
  });

  it('plays a 16 kHz mono WAV file in a loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-wav-'));
    try {
      const samples = 500; // not a multiple of a frame: the loop wraps inside frames
      const pcm = Buffer.alloc(samples * 2);
      for (let i = 0; i < samples; i++) pcm.writeInt16LE(i * 13 - 3000, i * 2);
      const path = join(dir, 'voice.wav');
      writeFileSync(path, encodeWav(pcm));
      const sim = phone({ audio: { kind: 'wav', path }, dial: { outcome: 'answer', ringMs: 0 } });
      await sim.connect();
      await gw.command('dial', 'call-1', { to: '+1555' });
      await gw.until(() => (frameCount() >= 5 ? true : undefined));
      const got = Buffer.concat(gw.current.frames.slice(0, 5));
      const want = Buffer.concat([pcm, pcm, pcm, pcm, pcm, pcm, pcm]).subarray(0, got.length);
      expect(got.equals(want)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a WAV file in another format', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-wav-'));
    try {
      const path = join(dir, 'cd.wav');
      writeFileSync(path, encodeWav(Buffer.alloc(400), { sampleRate: 44_100, channels: 2 }));
      expect(() => phone({ audio: { kind: 'wav', path } })).toThrow(/unsupported WAV format \(44100 Hz, 2 channel/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stamps frames with sequence numbers and send times', async () => {
    const sim = phone({ audio: { kind: 'tone', frequency: 440 }, stampFrames: true, dial: { outcome: 'answer', ringMs: 0 } });
    await sim.connect();
    const before = performance.timeOrigin + performance.now();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await gw.until(() => (frameCount() >= 3 ? true : undefined));
    const stamps = gw.current.frames.slice(0, 3).map((f) => readStamp(f));
    expect(stamps.map((s) => s?.seq)).toEqual([0, 1, 2]);
    for (const s of stamps) {
      expect(s?.sentAt).toBeGreaterThan(before);
      expect(s?.sentAt).toBeLessThan(performance.timeOrigin + performance.now());
    }
  });

  it('records the audio the gateway sends into the call', async () => {
    const sim = phone({ dial: { outcome: 'answer', ringMs: 0 } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await sim.waitFor((s) => s.currentCall?.state === 'active');
    const frames = [1, 2, 3].map((n) => Buffer.alloc(FRAME_BYTES, n));
    for (const f of frames) gw.current.ws.send(f);
    await sim.waitFor((s) => s.received.frames === 3);
    const stats = sim.received;
    expect(stats).toMatchObject({ frames: 3, bytes: 3 * FRAME_BYTES, strayFrames: 0, oddSizedFrames: 0 });
    expect(stats.arrivalTimes).toHaveLength(3);
    expect(sim.receivedAudio().equals(Buffer.concat(frames))).toBe(true);
    sim.resetReceived();
    expect(sim.received.frames).toBe(0);
    expect(sim.receivedAudio()).toHaveLength(0);
  });
});
