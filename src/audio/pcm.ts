import { endianness } from 'node:os';

/**
 * s16le PCM as Int16Array views: one typed-array access per sample instead of a bounds-checked
 * `readInt16LE` call, on the same memory where it can be.
 */
const LITTLE_ENDIAN = endianness() === 'LE';

/** The samples of s16le PCM (an even number of bytes): a view of the same memory on a little-endian machine when aligned, else a copy. */
export function samplesOf(pcm: Buffer): Int16Array {
  const count = pcm.length >> 1;
  if (LITTLE_ENDIAN && (pcm.byteOffset & 1) === 0) return new Int16Array(pcm.buffer, pcm.byteOffset, count);
  const copy = Buffer.from(pcm.subarray(0, count * 2));
  if (!LITTLE_ENDIAN) copy.swap16();
  return new Int16Array(copy.buffer, copy.byteOffset, count);
}

/**
 * A new buffer of `count` samples, not initialised (the caller writes every sample), and its
 * Int16Array view; `finishSamples` makes its bytes s16le. Small buffers come from Node's pool,
 * whose slices start on 8-byte boundaries.
 */
export function newSamples(count: number): { bytes: Buffer; samples: Int16Array } {
  const bytes = Buffer.allocUnsafe(count * 2);
  if ((bytes.byteOffset & 1) === 0) return { bytes, samples: new Int16Array(bytes.buffer, bytes.byteOffset, count) };
  const samples = new Int16Array(count);
  return { bytes: Buffer.from(samples.buffer, 0, count * 2), samples };
}

/** Turns samples written through `newSamples` into s16le bytes (a no-op on a little-endian machine). */
export function finishSamples(bytes: Buffer): Buffer {
  if (!LITTLE_ENDIAN) bytes.swap16();
  return bytes;
}
