/**
 * Pure PCM helpers of the console's live audio (no DOM, so the tests run them in Node). The call
 * audio is 16 kHz mono s16le in 20 ms frames of 640 bytes (spec: MediaInfo).
 */
export const CALL_RATE = 16_000;
export const FRAME_SAMPLES = 320;

export function int16ToFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768;
  return out;
}

export function floatToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  }
  return out;
}

/** Root mean square of a block, 0 to 1. */
export function rms(samples: Float32Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

/** A meter position from 0 to 1 for an RMS level: -60 dBFS and below is 0, 0 dBFS is 1. */
export function meterLevel(level: number): number {
  if (level <= 0) return 0;
  const db = 20 * Math.log10(level);
  return Math.max(0, Math.min(1, (db + 60) / 60));
}

/** One biquad section of a low-pass filter (RBJ cookbook), run sample by sample. */
class LowPass {
  private readonly b0: number;
  private readonly b1: number;
  private readonly b2: number;
  private readonly a1: number;
  private readonly a2: number;
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  constructor(cutoff: number, rate: number, q: number) {
    const w0 = (2 * Math.PI * cutoff) / rate;
    const alpha = Math.sin(w0) / (2 * q);
    const cos = Math.cos(w0);
    const a0 = 1 + alpha;
    this.b0 = (1 - cos) / 2 / a0;
    this.b1 = (1 - cos) / a0;
    this.b2 = this.b0;
    this.a1 = (-2 * cos) / a0;
    this.a2 = (1 - alpha) / a0;
  }

  step(x: number): number {
    const y = this.b0 * x + this.b1 * this.x1 + this.b2 * this.x2 - this.a1 * this.y1 - this.a2 * this.y2;
    this.x2 = this.x1;
    this.x1 = x;
    this.y2 = this.y1;
    this.y1 = y;
    return y;
  }
}

/**
 * Streaming sample-rate conversion by linear interpolation, with a 4th-order Butterworth low-pass in
 * front when it lowers the rate (a 48 kHz microphone to the 16 kHz call), so that what the lower rate
 * cannot carry does not fold back as noise. Keeps its phase across blocks and reuses its buffers:
 * the returned array is valid until the next call.
 */
export class LinearResampler {
  private readonly step: number;
  private readonly filters: LowPass[];
  /** Position of the next output sample in [previous block's last sample, ...this block]. */
  private pos = 0;
  private last = 0;
  private work = new Float32Array(0);
  private out = new Float32Array(0);

  constructor(
    readonly inRate: number,
    readonly outRate: number,
  ) {
    this.step = inRate / outRate;
    const cutoff = outRate * 0.45;
    this.filters = outRate < inRate ? [new LowPass(cutoff, inRate, 0.5412), new LowPass(cutoff, inRate, 1.3066)] : [];
  }

  process(input: Float32Array): Float32Array {
    const n = input.length;
    if (this.work.length < n + 1) this.work = new Float32Array(n + 1);
    const v = this.work;
    v[0] = this.last;
    for (let i = 0; i < n; i++) {
      let x = input[i]!;
      for (const f of this.filters) x = f.step(x);
      v[i + 1] = x;
    }
    const most = Math.ceil(n / this.step) + 1;
    if (this.out.length < most) this.out = new Float32Array(most);
    let count = 0;
    while (this.pos < n) {
      const i = Math.floor(this.pos);
      const frac = this.pos - i;
      const a = v[i]!;
      this.out[count++] = a + (v[i + 1]! - a) * frac;
      this.pos += this.step;
    }
    this.pos -= n;
    this.last = v[n]!;
    return this.out.subarray(0, count);
  }
}

/** Collects samples into fixed frames (320 samples = 20 ms at 16 kHz). */
export class FrameAssembler {
  private buffer: Int16Array;
  private filled = 0;

  constructor(private readonly size = FRAME_SAMPLES) {
    this.buffer = new Int16Array(size);
  }

  push(samples: Int16Array): Int16Array[] {
    const frames: Int16Array[] = [];
    let offset = 0;
    while (offset < samples.length) {
      const take = Math.min(this.size - this.filled, samples.length - offset);
      this.buffer.set(samples.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.size) {
        frames.push(this.buffer);
        this.buffer = new Int16Array(this.size);
        this.filled = 0;
      }
    }
    return frames;
  }
}
