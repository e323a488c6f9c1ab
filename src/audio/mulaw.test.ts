import { describe, it, expect } from 'vitest';
import { FRAME_BYTES, MULAW_FRAME_BYTES } from './constants.js';
import { decodeMulawSample, encodeMulawSample, MulawUpsampler, pcm16kToMulaw8k } from './mulaw.js';

function pcm(samples: number[]): Buffer {
  const b = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => b.writeInt16LE(s, i * 2));
  return b;
}

function samplesOf(b: Buffer): number[] {
  return Array.from({ length: b.length / 2 }, (_, i) => b.readInt16LE(i * 2));
}

describe('G.711 mu-law samples', () => {
  it('matches known vectors', () => {
    expect(encodeMulawSample(0)).toBe(0xff);
    expect(encodeMulawSample(32767)).toBe(0x80);
    expect(encodeMulawSample(32635)).toBe(0x80);
    expect(encodeMulawSample(-32768)).toBe(0x00);
    expect(encodeMulawSample(100)).toBe(0xf2);
    expect(encodeMulawSample(1000)).toBe(0xce);
    expect(encodeMulawSample(-1000)).toBe(0x4e);
    expect(encodeMulawSample(4000)).toBe(0xaf);
    expect(encodeMulawSample(8159)).toBe(0x9f);
    expect(decodeMulawSample(0xff)).toBe(0);
    expect(decodeMulawSample(0x7f)).toBe(0);
    expect(decodeMulawSample(0x00)).toBe(-32124);
    expect(decodeMulawSample(0x80)).toBe(32124);
    expect(decodeMulawSample(0x7e)).toBe(-8);
    expect(decodeMulawSample(0x0f)).toBe(-16764);
    expect(decodeMulawSample(0xd5)).toBe(716);
  });

  it('round-trips every code except negative zero', () => {
    for (let b = 0; b < 256; b++) {
      expect(encodeMulawSample(decodeMulawSample(b))).toBe(b === 0x7f ? 0xff : b);
    }
  });

  it('is symmetric and monotonic', () => {
    const asymmetric: number[] = [];
    const decreasing: number[] = [];
    let previous = decodeMulawSample(encodeMulawSample(-32768));
    for (let s = -32767; s <= 32767; s++) {
      const code = encodeMulawSample(s);
      if (s > 0 && encodeMulawSample(-s) !== (code ^ 0x80)) asymmetric.push(s);
      const decoded = decodeMulawSample(code);
      if (decoded < previous) decreasing.push(s);
      previous = decoded;
    }
    expect(asymmetric).toEqual([]);
    expect(decreasing).toEqual([]);
  });

  it('clamps out-of-range input', () => {
    expect(encodeMulawSample(40000)).toBe(0x80);
    expect(encodeMulawSample(-40000)).toBe(0x00);
  });
});

describe('pcm16kToMulaw8k', () => {
  it('averages each pair of samples', () => {
    const out = pcm16kToMulaw8k(pcm([1000, 1000, 0, 2000, -999, -1001, 32767, 32767]));
    expect([...out]).toEqual([0xce, 0xce, 0x4e, 0x80]);
  });

  it('turns a 640-byte frame into 160 bytes and ignores an incomplete pair', () => {
    expect(pcm16kToMulaw8k(Buffer.alloc(FRAME_BYTES)).length).toBe(MULAW_FRAME_BYTES);
    expect(pcm16kToMulaw8k(Buffer.alloc(FRAME_BYTES)).every((b) => b === 0xff)).toBe(true);
    expect(pcm16kToMulaw8k(Buffer.alloc(7)).length).toBe(1);
  });

  it('reads unaligned buffers', () => {
    const backing = Buffer.alloc(9);
    const view = backing.subarray(1);
    view.writeInt16LE(1000, 0);
    view.writeInt16LE(1000, 2);
    expect([...pcm16kToMulaw8k(view)]).toEqual([0xce, 0xff]);
  });
});

describe('MulawUpsampler', () => {
  it('interpolates between consecutive samples, starting from silence', () => {
    const codes = [0x80, 0x00, 0xff];
    const out = samplesOf(new MulawUpsampler().push(Buffer.from(codes)));
    expect(out).toEqual([16062, 32124, 0, -32124, -16062, 0]);
  });

  it('gives the same output whether fed whole or in chunks', () => {
    const mu = Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 37 + (i >> 3)) & 0xff));
    const whole = new MulawUpsampler().push(mu);
    expect(whole.length).toBe(mu.length * 4);

    const chunked = new MulawUpsampler();
    const parts: Buffer[] = [];
    for (let i = 0, size = 1; i < mu.length; i += size, size = (size * 7 + 3) % 211) {
      parts.push(chunked.push(mu.subarray(i, i + size)));
    }
    expect(Buffer.concat(parts).equals(whole)).toBe(true);
  });

  it('restores a 160-byte vendor frame to a 640-byte frame close to the original', () => {
    const original = pcm(Array.from({ length: 320 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 400 * i) / 16000))));
    const up = new MulawUpsampler();
    const out = samplesOf(up.push(pcm16kToMulaw8k(original)));
    expect(out.length * 2).toBe(FRAME_BYTES);
    const src = samplesOf(original);
    // Averaging then interpolating delays the signal by half a sample.
    for (let i = 2; i < out.length; i++) {
      expect(Math.abs(out[i]! - (src[i - 1]! + src[i]!) / 2)).toBeLessThan(300);
    }
  });

  it('reset forgets the last sample', () => {
    const up = new MulawUpsampler();
    up.push(Buffer.from([0x80]));
    up.reset();
    expect(samplesOf(up.push(Buffer.from([0xff])))).toEqual([0, 0]);
  });
});
