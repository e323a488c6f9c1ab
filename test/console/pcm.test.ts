import { describe, expect, it } from 'vitest';
import { FrameAssembler, floatToInt16, int16ToFloat, LinearResampler, meterLevel, rms } from '../../console/src/audio/pcm.js';

const sine = (rate: number, hz: number, seconds: number): Float32Array => Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / rate));

describe('console live audio: PCM helpers', () => {
  it('converts between s16 and float without drift at the ends of the range', () => {
    const pcm = Int16Array.from([-32768, -16384, 0, 16384, 32767]);
    expect(Array.from(floatToInt16(int16ToFloat(pcm)))).toEqual(Array.from(pcm));
    expect(Array.from(floatToInt16(Float32Array.from([-2, 2])))).toEqual([-32768, 32767]);
  });

  it('resamples 48 kHz to 16 kHz and back, in blocks, keeping the length and the tone', () => {
    const input = sine(48_000, 440, 1);
    const down = new LinearResampler(48_000, 16_000);
    const parts: number[] = [];
    for (let i = 0; i < input.length; i += 128) parts.push(...down.process(input.subarray(i, i + 128)));
    expect(Math.abs(parts.length - 16_000)).toBeLessThanOrEqual(2);
    const mid = Float32Array.from(parts.slice(800, 15_200));
    expect(rms(mid)).toBeCloseTo(0.5 / Math.SQRT2, 1);

    const up = new LinearResampler(16_000, 48_000);
    const back: number[] = [];
    for (let i = 0; i < parts.length; i += 320) back.push(...up.process(Float32Array.from(parts.slice(i, i + 320))));
    expect(Math.abs(back.length - 48_000)).toBeLessThanOrEqual(3);
  });

  it('filters out what the lower rate cannot carry when it resamples down', () => {
    const high = sine(48_000, 15_000, 0.5);
    const out = new LinearResampler(48_000, 16_000).process(high);
    expect(rms(out.subarray(100))).toBeLessThan(0.04);
  });

  it('assembles any lengths into 320-sample frames', () => {
    const frames = new FrameAssembler();
    expect(frames.push(new Int16Array(100))).toHaveLength(0);
    const out = frames.push(Int16Array.from({ length: 700 }, (_, i) => i));
    expect(out.map((f) => f.length)).toEqual([320, 320]);
    expect(out[0]![100]).toBe(0);
    expect(out[1]![0]).toBe(220);
  });

  it('maps levels onto a -60 dB to 0 dB meter', () => {
    expect(meterLevel(0)).toBe(0);
    expect(meterLevel(1)).toBe(1);
    expect(meterLevel(0.001)).toBeCloseTo(0, 5);
    expect(meterLevel(0.1)).toBeCloseTo(2 / 3, 5);
  });
});
