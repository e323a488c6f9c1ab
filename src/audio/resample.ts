import { finishSamples, newSamples, samplesOf } from './pcm.js';

export interface ResamplerOptions {
  /** Taps of each polyphase branch: more gives a sharper filter, more delay and more work. */
  tapsPerPhase?: number;
  /** Corner (-6 dB) of the low-pass filter, as a fraction of the lower of the two Nyquist rates. */
  cutoff?: number;
  /** Kaiser window shape: 7 gives about 70 dB of stop-band attenuation. */
  kaiserBeta?: number;
}

const DEFAULTS = { tapsPerPhase: 32, cutoff: 0.85, kaiserBeta: 7 } as const;

function gcd(a: number, b: number): number {
  while (b !== 0) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; term > 1e-12 * sum; k++) {
    const f = x / (2 * k);
    term *= f * f;
    sum += term;
  }
  return sum;
}

/**
 * Kaiser-windowed sinc at the up-sampled rate, split into `up` branches stored contiguously
 * (branch p holds taps h[p], h[p + up], ...). Each branch is scaled to unit DC gain so a
 * constant input gives a constant output whatever the branch.
 */
function designBranches(up: number, taps: number, corner: number, beta: number): Float64Array {
  const length = up * taps;
  const centre = (length - 1) / 2;
  const norm = besselI0(beta);
  const branches = new Float64Array(length);
  for (let i = 0; i < length; i++) {
    const x = i - centre;
    const arg = 2 * Math.PI * corner * x;
    const sinc = x === 0 ? 1 : Math.sin(arg) / arg;
    const r = x / centre;
    const window = besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r))) / norm;
    branches[(i % up) * taps + Math.floor(i / up)] = sinc * window;
  }
  for (let p = 0; p < up; p++) {
    const branch = branches.subarray(p * taps, (p + 1) * taps);
    const sum = branch.reduce((a, b) => a + b, 0);
    for (let j = 0; j < taps; j++) branch[j]! /= sum;
  }
  return branches;
}

/**
 * Streaming polyphase resampler for s16le mono PCM between rates with a rational ratio.
 * Output sample m is y[m] = sum_j h[p + j*up] * x[b - j], with t = m*down, b = floor(t/up),
 * p = t mod up; it is emitted as soon as x[b] has arrived, and the last taps-1 inputs are kept,
 * so any chunking of the input gives the same output, ceil(n*up/down) samples for n inputs.
 */
export class Resampler {
  readonly fromRate: number;
  readonly toRate: number;
  private readonly up: number;
  private readonly down: number;
  private readonly taps: number;
  private readonly branches: Float64Array;
  /** The last taps-1 input samples, then the current chunk. */
  private work: Float64Array;
  /** Position of the next output at the up-sampled rate, relative to the next chunk's start. */
  private position = 0;
  private carry: Buffer | null = null;

  constructor(fromRate: number, toRate: number, opts: ResamplerOptions = {}) {
    if (!Number.isInteger(fromRate) || !Number.isInteger(toRate) || fromRate <= 0 || toRate <= 0) {
      throw new RangeError(`sample rates must be positive integers, got ${fromRate} and ${toRate}`);
    }
    const { tapsPerPhase, cutoff, kaiserBeta } = { ...DEFAULTS, ...opts };
    if (!Number.isInteger(tapsPerPhase) || tapsPerPhase < 2) {
      throw new RangeError(`tapsPerPhase must be an integer >= 2, got ${tapsPerPhase}`);
    }
    if (!(cutoff > 0 && cutoff <= 1)) throw new RangeError(`cutoff must be in (0, 1], got ${cutoff}`);
    const g = gcd(fromRate, toRate);
    this.fromRate = fromRate;
    this.toRate = toRate;
    this.up = toRate / g;
    this.down = fromRate / g;
    this.taps = tapsPerPhase;
    const cornerHz = (cutoff * Math.min(fromRate, toRate)) / 2;
    this.branches = designBranches(this.up, this.taps, cornerHz / (fromRate * this.up), kaiserBeta);
    this.work = new Float64Array(this.taps - 1 + 1024);
  }

  process(pcm: Buffer): Buffer {
    let input = pcm;
    // A sample split across two chunks waits for its second byte.
    if (this.carry) {
      input = Buffer.concat([this.carry, pcm]);
      this.carry = null;
    }
    if (input.length & 1) {
      this.carry = Buffer.from(input.subarray(input.length - 1));
      input = input.subarray(0, input.length - 1);
    }

    const { up, down, taps, branches } = this;
    const n = input.length >> 1;
    const kept = taps - 1;
    if (this.work.length < kept + n) {
      const grown = new Float64Array(kept + n);
      grown.set(this.work.subarray(0, kept));
      this.work = grown;
    }
    const work = this.work;
    const samples = samplesOf(input);
    for (let i = 0; i < n; i++) work[kept + i] = samples[i]!;

    const end = n * up;
    let t = this.position;
    const count = t < end ? Math.ceil((end - t) / down) : 0;
    const out = newSamples(count);
    for (let o = 0; o < count; o++, t += down) {
      const b = Math.floor(t / up);
      const offset = (t - b * up) * taps;
      const newest = kept + b;
      let acc = 0;
      for (let j = 0; j < taps; j++) acc += branches[offset + j]! * work[newest - j]!;
      const s = Math.round(acc);
      out.samples[o] = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
    }
    this.position = t - end;
    work.copyWithin(0, n, n + kept);
    return finishSamples(out.bytes);
  }
}
