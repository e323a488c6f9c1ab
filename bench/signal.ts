import { FRAME_BYTES, FRAME_SAMPLES, SAMPLE_RATE } from '../src/audio/constants.js';
import { encodeWav } from '../src/simulator/index.js';

/*
 * The phones' audio: a tone whose every 20 ms frame carries its index in a form that survives the
 * vendor path (16 kHz -> pair average -> mu-law -> agent -> mu-law -> linear upsampling). Bits are
 * written as pairs of equal 16 kHz samples at +/-CODE_LEVEL; averaging keeps them, mu-law keeps
 * their sign, and the upsampler copies each 8 kHz sample into the odd 16 kHz sample.
 * 8 kHz samples 0-3 (16 kHz 0-7) are left to the simulator's stamp; the code starts at 8 kHz sample 8.
 */
export const LOOP_FRAMES = 8192;
const INDEX_BITS = 13;
const SYNC = [1, 0, 1, 1, 0, 1];
const CODE_START = 8;
const CODE_LEVEL = 8000;
const CODE_BITS = SYNC.length + INDEX_BITS;
const TONE_HZ = 440;
const TONE_PEAK = 0.3 * 32767;

function codeBits(index: number): number[] {
  const bits = [...SYNC];
  for (let b = INDEX_BITS - 1; b >= 0; b--) bits.push((index >> b) & 1);
  return bits;
}

/** A WAV of LOOP_FRAMES frames, frame i coded with i; the simulator plays it in a loop. */
export function codedWav(): Buffer {
  const pcm = Buffer.alloc(LOOP_FRAMES * FRAME_BYTES);
  const step = (2 * Math.PI * TONE_HZ) / SAMPLE_RATE;
  for (let f = 0; f < LOOP_FRAMES; f++) {
    const base = f * FRAME_BYTES;
    for (let s = 0; s < FRAME_SAMPLES; s++) {
      pcm.writeInt16LE(Math.round(TONE_PEAK * Math.sin(step * (f * FRAME_SAMPLES + s))), base + 2 * s);
    }
    codeBits(f).forEach((bit, k) => {
      const v = bit ? CODE_LEVEL : -CODE_LEVEL;
      const s = 2 * (CODE_START + k);
      pcm.writeInt16LE(v, base + 2 * s);
      pcm.writeInt16LE(v, base + 2 * s + 2);
    });
  }
  return encodeWav(pcm);
}

function decode(bitAt: (k: number) => number): number | null {
  let index = 0;
  for (let k = 0; k < CODE_BITS; k++) {
    const bit = bitAt(k);
    if (k < SYNC.length) {
      if (bit !== SYNC[k]) return null;
    } else {
      index = (index << 1) | bit;
    }
  }
  return index;
}

/** The frame's index modulo LOOP_FRAMES, from 16 kHz s16le PCM (sent as is, or upsampled). */
export function codeOfPcm(frame: Buffer): number | null {
  if (frame.length < 4 * (CODE_START + CODE_BITS)) return null;
  return decode((k) => (frame.readInt16LE(2 * (2 * (CODE_START + k) + 1)) > 0 ? 1 : 0));
}

/** The first base64 characters of a mu-law chunk that hold its code: whole groups of four, 3 bytes each. */
export const MULAW_CODE_BASE64_CHARS = Math.ceil((CODE_START + CODE_BITS) / 3) * 4;

/** The frame's index modulo LOOP_FRAMES, from 8 kHz mu-law (the sign is the top bit, set when positive). */
export function codeOfMulaw(chunk: Buffer): number | null {
  if (chunk.length < CODE_START + CODE_BITS) return null;
  return decode((k) => ((chunk[CODE_START + k]! & 0x80) !== 0 ? 1 : 0));
}

/** Turns codes (index mod LOOP_FRAMES) back into frame indices, near the last one seen. */
export class Unwrapper {
  private last = -1;

  next(code: number): number {
    if (this.last < 0) {
      this.last = code;
      return code;
    }
    let delta = (code - (this.last % LOOP_FRAMES) + LOOP_FRAMES) % LOOP_FRAMES;
    if (delta > LOOP_FRAMES / 2) delta -= LOOP_FRAMES;
    const index = this.last + delta;
    if (index > this.last) this.last = index;
    return index;
  }
}
