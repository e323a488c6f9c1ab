import { finishSamples, newSamples, samplesOf } from './pcm.js';

// ITU-T G.711 mu-law, as in the reference implementation (bias 0x84, clip 32635).
const BIAS = 0x84;
const CLIP = 32635;

function encodeSlow(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let s = Math.min(sign ? -sample : sample, CLIP) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  s = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | s) & 0xff;
}

function decodeSlow(byte: number): number {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + BIAS) << ((u >> 4) & 0x07)) - BIAS;
  return u & 0x80 ? -magnitude : magnitude;
}

/** Indexed by the sample's 16-bit two's complement pattern (`s16 & 0xffff`). */
const ENCODE = new Uint8Array(65536);
for (let i = 0; i < 65536; i++) ENCODE[i] = encodeSlow((i << 16) >> 16);

const DECODE = new Int16Array(256);
for (let i = 0; i < 256; i++) DECODE[i] = decodeSlow(i);

/** Encodes one 16-bit sample; values outside the int16 range are clamped. */
export function encodeMulawSample(s16: number): number {
  const s = s16 > 32767 ? 32767 : s16 < -32768 ? -32768 : s16 | 0;
  return ENCODE[s & 0xffff]!;
}

export function decodeMulawSample(byte: number): number {
  return DECODE[byte & 0xff]!;
}

/**
 * 16 kHz s16le PCM to 8 kHz mu-law by averaging each pair of samples (640 bytes -> 160 bytes).
 * A trailing incomplete pair is ignored: callers pass whole frames.
 */
export function pcm16kToMulaw8k(pcm: Buffer): Buffer {
  const pairs = pcm.length >> 2;
  const s = samplesOf(pcm);
  const out = Buffer.allocUnsafe(pairs);
  for (let i = 0; i < pairs; i++) out[i] = ENCODE[((s[2 * i]! + s[2 * i + 1]!) >> 1) & 0xffff]!;
  return out;
}

/**
 * 8 kHz mu-law to 16 kHz s16le PCM by linear interpolation, for one stream.
 * For decoded input samples s[i] and s[-1] = the last sample of the previous chunk (0 at first):
 *   out[2i]     = (s[i-1] + s[i]) >> 1
 *   out[2i + 1] = s[i]
 * so the output is exactly twice as long as the input and chunking does not change it; the price
 * is a delay of one 16 kHz sample (62.5 us).
 */
export class MulawUpsampler {
  private last = 0;

  push(mu: Buffer): Buffer {
    const { bytes, samples } = newSamples(mu.length * 2);
    let prev = this.last;
    for (let i = 0; i < mu.length; i++) {
      const s = DECODE[mu[i]!]!;
      samples[2 * i] = (prev + s) >> 1;
      samples[2 * i + 1] = s;
      prev = s;
    }
    this.last = prev;
    return finishSamples(bytes);
  }

  reset(): void {
    this.last = 0;
  }
}
