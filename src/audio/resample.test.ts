import { describe, it, expect } from 'vitest';
import { Resampler } from './resample.js';

function tone(rate: number, hz: number, samples: number, amplitude = 10_000): Buffer {
  const b = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    b.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)), i * 2);
  }
  return b;
}

/** Amplitude of the `hz` component of `pcm` from sample `skip` on (Goertzel). */
function amplitudeAt(pcm: Buffer, rate: number, hz: number, skip: number): number {
  const n = pcm.length / 2 - skip;
  const coeff = 2 * Math.cos((2 * Math.PI * hz) / rate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const s0 = pcm.readInt16LE((skip + i) * 2) + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return (2 * Math.sqrt(s1 * s1 + s2 * s2 - coeff * s1 * s2)) / n;
}

function rms(pcm: Buffer, skip: number): number {
  let sum = 0;
  const n = pcm.length / 2 - skip;
  for (let i = skip; i < pcm.length / 2; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return Math.sqrt(sum / n);
}

function zeroCrossings(pcm: Buffer, skip: number): number {
  let count = 0;
  for (let i = skip + 1; i < pcm.length / 2; i++) {
    if (pcm.readInt16LE((i - 1) * 2) < 0 !== pcm.readInt16LE(i * 2) < 0) count++;
  }
  return count;
}

const dB = (ratio: number) => 20 * Math.log10(ratio);

/** Deterministic chunk sizes in bytes, odd ones included. */
function* chunkSizes(seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    yield 1 + (x % 1500);
  }
}

function inChunks(r: Resampler, input: Buffer, seed: number): Buffer {
  const parts: Buffer[] = [];
  const sizes = chunkSizes(seed);
  for (let i = 0; i < input.length; ) {
    const size = sizes.next().value as number;
    parts.push(r.process(input.subarray(i, i + size)));
    i += size;
  }
  return Buffer.concat(parts);
}

describe('Resampler', () => {
  for (const [from, to] of [
    [16_000, 24_000],
    [24_000, 16_000],
    [8_000, 16_000],
    [44_100, 16_000],
  ] as const) {
    it(`${from} -> ${to}: gives ceil(n * to / from) samples over many chunks`, () => {
      const r = new Resampler(from, to);
      let inSamples = 0;
      let outSamples = 0;
      for (let i = 0; i < 300; i++) {
        const samples = 1 + ((i * 7919) % 517);
        inSamples += samples;
        outSamples += r.process(Buffer.alloc(samples * 2)).length / 2;
        expect(outSamples).toBe(Math.ceil((inSamples * to) / from));
      }
    });
  }

  it('gives the same output in chunks (odd byte counts included) as in one call', () => {
    for (const [from, to] of [
      [16_000, 24_000],
      [24_000, 16_000],
    ] as const) {
      const input = Buffer.concat([tone(from, 440, from / 2), tone(from, 3100, from / 2, 20_000)]);
      const whole = new Resampler(from, to).process(input);
      for (const seed of [1, 2, 3]) {
        expect(inChunks(new Resampler(from, to), input, seed).equals(whole)).toBe(true);
      }
    }
  });

  for (const [from, to] of [
    [16_000, 24_000],
    [24_000, 16_000],
  ] as const) {
    it(`${from} -> ${to}: keeps a 1 kHz tone's amplitude and frequency`, () => {
      const out = new Resampler(from, to).process(tone(from, 1000, from));
      const skip = 100;
      expect(Math.abs(dB(amplitudeAt(out, to, 1000, skip) / 10_000))).toBeLessThan(1);
      expect(dB(amplitudeAt(out, to, 1100, skip) / 10_000)).toBeLessThan(-30);
      // One second of output, less the skipped start: about 2000 crossings.
      const expected = (2 * 1000 * (out.length / 2 - skip)) / to;
      expect(Math.abs(zeroCrossings(out, skip) - expected)).toBeLessThanOrEqual(2);
    });
  }

  it('24000 -> 16000: removes a 10 kHz tone instead of aliasing it to 6 kHz', () => {
    const out = new Resampler(24_000, 16_000).process(tone(24_000, 10_000, 24_000));
    expect(dB(rms(out, 100) / (10_000 / Math.SQRT2))).toBeLessThan(-40);
    expect(dB(amplitudeAt(out, 16_000, 6000, 100) / 10_000)).toBeLessThan(-40);
  });

  it('16000 -> 24000: leaves no image of a 3 kHz tone at 13 kHz', () => {
    const out = new Resampler(16_000, 24_000).process(tone(16_000, 3000, 16_000));
    expect(dB(amplitudeAt(out, 24_000, 13_000, 100) / 10_000)).toBeLessThan(-40);
  });

  it('keeps a constant level and saturates instead of wrapping', () => {
    const dc = Buffer.alloc(2000 * 2);
    for (let i = 0; i < 2000; i++) dc.writeInt16LE(32767, i * 2);
    const out = new Resampler(16_000, 24_000).process(dc);
    for (let i = 100; i < out.length / 2; i++) expect(out.readInt16LE(i * 2)).toBeGreaterThan(32700);
  });

  it('rejects rates that are not positive integers', () => {
    expect(() => new Resampler(0, 16_000)).toThrow(RangeError);
    expect(() => new Resampler(16_000, 22_050.5)).toThrow(RangeError);
    expect(() => new Resampler(16_000, 24_000, { tapsPerPhase: 1 })).toThrow(RangeError);
  });
});
