import { describe, expect, it } from 'vitest';
import { FRAME_BYTES } from '../audio/constants.js';
import { AudioRecorder } from './audio-recorder.js';
import { pcmLoopSource, readStamp, toneSource, writeStamp, STAMP_BYTES } from './audio-source.js';
import { FrameClock } from './frame-clock.js';
import { zeroCrossings } from '../../test/fakes/fake-gateway.js';
import { encodeWav, parseWav } from './wav.js';

describe('parseWav', () => {
  const pcm = Buffer.from([1, 0, 2, 0, 3, 0]);

  it('reads 16 kHz mono 16-bit PCM and skips unknown chunks', () => {
    const plain = encodeWav(pcm);
    // Insert an odd-sized LIST chunk (padded to even) before "data".
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc'), Buffer.from([0])]);
    const withList = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)]);
    for (const file of [plain, withList]) {
      const wav = parseWav(file);
      expect(wav).toMatchObject({ sampleRate: 16_000, channels: 1, bitsPerSample: 16 });
      expect(wav.data.equals(pcm)).toBe(true);
    }
  });

  it('accepts WAVE_FORMAT_EXTENSIBLE with the PCM subformat', () => {
    const file = encodeWav(pcm);
    const fmt = Buffer.alloc(40);
    file.copy(fmt, 0, 20, 36);
    fmt.writeUInt16LE(0xfffe, 0);
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(1, 24);
    const ext = Buffer.concat([file.subarray(0, 12), Buffer.from('fmt '), Buffer.from([40, 0, 0, 0]), fmt, file.subarray(36)]);
    expect(parseWav(ext).data.equals(pcm)).toBe(true);
  });

  it.each([
    ['not RIFF', Buffer.from('hello world, not a wav'), /not a RIFF\/WAVE file/],
    ['8 kHz', encodeWav(pcm, { sampleRate: 8000 }), /unsupported WAV format \(8000 Hz, 1 channel\(s\), 16-bit/],
    ['stereo', encodeWav(pcm, { channels: 2 }), /2 channel\(s\)/],
    ['8-bit', encodeWav(pcm, { bitsPerSample: 8 }), /8-bit/],
    ['empty', encodeWav(Buffer.alloc(0)), /data chunk is empty/],
    ['no data', encodeWav(pcm).subarray(0, 36), /no data chunk/],
  ])('rejects %s', (_name, file, message) => {
    expect(() => parseWav(file, 'x.wav')).toThrow(message);
  });

  it('rejects float samples', () => {
    const file = encodeWav(pcm);
    file.writeUInt16LE(3, 20);
    expect(() => parseWav(file)).toThrow(/format 3/);
  });
});

describe('audio sources', () => {
  it('a tone keeps its phase across frames', () => {
    const src = toneSource(1000, 0.5);
    const frames = Array.from({ length: 50 }, () => {
      const f = Buffer.alloc(FRAME_BYTES);
      src.fill(f);
      return f;
    });
    expect(zeroCrossings(Buffer.concat(frames))).toBeGreaterThanOrEqual(1999);
    expect(zeroCrossings(Buffer.concat(frames))).toBeLessThanOrEqual(2000);
  });

  it('refuses impossible tones', () => {
    expect(() => toneSource(9000)).toThrow(/frequency/);
    expect(() => toneSource(440, 2)).toThrow(/amplitude/);
  });

  it('a PCM loop wraps around', () => {
    const src = pcmLoopSource(Buffer.from([1, 2, 3, 4, 5, 6]));
    const f = Buffer.alloc(8);
    src.fill(f);
    expect([...f]).toEqual([1, 2, 3, 4, 5, 6, 1, 2]);
    src.fill(f);
    expect([...f]).toEqual([3, 4, 5, 6, 1, 2, 3, 4]);
  });
});

describe('frame stamps', () => {
  it('round-trip and are absent from plain audio', () => {
    const f = Buffer.alloc(FRAME_BYTES);
    expect(readStamp(f)).toBeNull();
    writeStamp(f, 4_000_000_000, 1_700_000_000_123.25);
    expect(readStamp(f)).toEqual({ seq: 4_000_000_000, sentAt: 1_700_000_000_123.25 });
    expect(readStamp(new Uint8Array(f))).toEqual({ seq: 4_000_000_000, sentAt: 1_700_000_000_123.25 });
    expect(readStamp(f.subarray(0, STAMP_BYTES - 1))).toBeNull();
  });
});

describe('AudioRecorder', () => {
  it('caps the kept audio and the arrival times', () => {
    const rec = new AudioRecorder({ capMs: 40, maxArrivals: 2 });
    for (let n = 1; n <= 3; n++) rec.record(Buffer.alloc(FRAME_BYTES, n), true, n * 20);
    rec.record(Buffer.alloc(10), false, 80);
    expect(rec.stats()).toEqual({
      frames: 4,
      bytes: 3 * FRAME_BYTES + 10,
      strayFrames: 1,
      oddSizedFrames: 1,
      firstAt: 20,
      lastAt: 80,
      arrivalTimes: [60, 80],
    });
    expect(rec.audio().equals(Buffer.concat([Buffer.alloc(FRAME_BYTES, 1), Buffer.alloc(FRAME_BYTES, 2)]))).toBe(true);
  });
});

describe('FrameClock', () => {
  it('ticks on a fixed grid without drift', async () => {
    const times: number[] = [];
    let clock: FrameClock | undefined;
    const done = new Promise<void>((resolve) => {
      clock = new FrameClock(() => {
        times.push(performance.now());
        if (times.length === 10) {
          clock?.stop();
          resolve();
        }
      }, 10);
    });
    const t0 = performance.now();
    clock?.start();
    await done;
    // Frame n is due at t0 + n * 10 ms, and lateness does not accumulate (timers chained 10 ms apart
    // would be late by 1, 2, 3 ... ms). The median, since a stall of the machine makes a few ticks
    // late without being drift.
    expect((times[9] ?? 0) - t0).toBeGreaterThanOrEqual(99);
    const lateness = times.map((at, i) => at - (t0 + (i + 1) * 10));
    expect([...lateness].sort((a, b) => a - b)[5]).toBeLessThan(4);
  });

  it('catches up after a stall, up to maxCatchUp frames', async () => {
    let ticks = 0;
    const clock = new FrameClock(() => ticks++, 5, 3);
    clock.start();
    const end = performance.now() + 60;
    while (performance.now() < end) {
      // block the event loop for 12 periods
    }
    await new Promise((r) => setTimeout(r, 0));
    clock.stop();
    expect(ticks).toBe(3);
  });
});
