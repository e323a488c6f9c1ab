import { readFileSync } from 'node:fs';
import { BYTES_PER_SAMPLE, CHANNELS, SAMPLE_RATE } from '../audio/constants.js';

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** The PCM samples (s16le for the only format accepted), a view into the file's buffer. */
  data: Buffer;
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/**
 * Reads a RIFF/WAVE file and accepts only what the phone sends: 16 kHz mono 16-bit PCM.
 * `source` names the file in error messages.
 */
export function parseWav(buf: Buffer, source = 'WAV data'): WavInfo {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${source}: not a RIFF/WAVE file`);
  }
  let fmt: { format: number; channels: number; sampleRate: number; bitsPerSample: number } | undefined;
  let data: Buffer | undefined;
  let offset = 12;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const start = offset + 8;
    // A truncated last chunk (common for streamed recordings) is read up to the end of the file.
    const end = Math.min(start + size, buf.length);
    if (id === 'fmt ') {
      if (end - start < 16) throw new Error(`${source}: fmt chunk too short`);
      let format = buf.readUInt16LE(start);
      if (format === WAVE_FORMAT_EXTENSIBLE && end - start >= 26) format = buf.readUInt16LE(start + 24);
      fmt = {
        format,
        channels: buf.readUInt16LE(start + 2),
        sampleRate: buf.readUInt32LE(start + 4),
        bitsPerSample: buf.readUInt16LE(start + 14),
      };
    } else if (id === 'data') {
      data = buf.subarray(start, end);
    }
    offset = start + size + (size % 2);
  }
  if (!fmt) throw new Error(`${source}: no fmt chunk`);
  if (!data) throw new Error(`${source}: no data chunk`);
  const wanted = `${SAMPLE_RATE} Hz mono ${BYTES_PER_SAMPLE * 8}-bit PCM`;
  const got = `${fmt.sampleRate} Hz, ${fmt.channels} channel(s), ${fmt.bitsPerSample}-bit, format ${fmt.format}`;
  if (
    fmt.format !== WAVE_FORMAT_PCM ||
    fmt.channels !== CHANNELS ||
    fmt.sampleRate !== SAMPLE_RATE ||
    fmt.bitsPerSample !== BYTES_PER_SAMPLE * 8
  ) {
    throw new Error(`${source}: unsupported WAV format (${got}); the phone needs ${wanted}`);
  }
  const usable = data.length - (data.length % BYTES_PER_SAMPLE);
  if (usable === 0) throw new Error(`${source}: data chunk is empty`);
  return { ...fmt, data: data.subarray(0, usable) };
}

export function loadWav(path: string): WavInfo {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read WAV file ${path}: ${(err as Error).message}`, { cause: err });
  }
  return parseWav(buf, path);
}

/** Wraps s16le samples into a minimal WAV file (for tests and fixtures). */
export function encodeWav(
  pcm: Buffer,
  opts: { sampleRate?: number; channels?: number; bitsPerSample?: number } = {},
): Buffer {
  const sampleRate = opts.sampleRate ?? SAMPLE_RATE;
  const channels = opts.channels ?? CHANNELS;
  const bits = opts.bitsPerSample ?? BYTES_PER_SAMPLE * 8;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(WAVE_FORMAT_PCM, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE((sampleRate * channels * bits) / 8, 28);
  header.writeUInt16LE((channels * bits) / 8, 32);
  header.writeUInt16LE(bits, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
