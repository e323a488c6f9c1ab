import { SAMPLE_RATE } from '../audio/constants.js';
import { loadWav } from './wav.js';

/** What the simulated remote party says while a call is active. */
export type AudioSpec =
  | { kind: 'tone'; frequency: number; amplitude?: number }
  | { kind: 'wav'; path: string }
  | { kind: 'silence' }
  | { kind: 'none' };

export const DEFAULT_AUDIO: AudioSpec = { kind: 'tone', frequency: 440, amplitude: 0.3 };

/** Writes the next 20 ms of audio into a 640-byte frame. */
export interface AudioSource {
  fill(frame: Buffer): void;
}

export function toneSource(frequency: number, amplitude = 0.3): AudioSource {
  if (!(frequency > 0 && frequency < SAMPLE_RATE / 2)) {
    throw new Error(`tone frequency must be between 0 and ${SAMPLE_RATE / 2} Hz, got ${frequency}`);
  }
  if (!(amplitude >= 0 && amplitude <= 1)) throw new Error(`tone amplitude must be within 0..1, got ${amplitude}`);
  const step = (2 * Math.PI * frequency) / SAMPLE_RATE;
  const peak = amplitude * 32767;
  let phase = 0;
  return {
    fill(frame) {
      for (let i = 0; i + 1 < frame.length; i += 2) {
        frame.writeInt16LE(Math.round(peak * Math.sin(phase)), i);
        phase += step;
      }
      // Keeps the phase small so long calls do not lose precision.
      phase %= 2 * Math.PI;
    },
  };
}

/** Plays `pcm` (s16le) in a loop. */
export function pcmLoopSource(pcm: Buffer): AudioSource {
  if (pcm.length === 0) throw new Error('PCM loop needs at least one sample');
  let pos = 0;
  return {
    fill(frame) {
      let written = 0;
      while (written < frame.length) {
        const n = Math.min(frame.length - written, pcm.length - pos);
        pcm.copy(frame, written, pos, pos + n);
        written += n;
        pos = (pos + n) % pcm.length;
      }
    },
  };
}

export const silenceSource: AudioSource = {
  fill(frame) {
    frame.fill(0);
  },
};

/**
 * Returns a factory that makes a fresh source per call (each call starts the tone or the file
 * from the beginning). A WAV file is read and checked here, once, so a bad file fails early.
 */
export function audioSourceFactory(spec: AudioSpec): (() => AudioSource) | null {
  switch (spec.kind) {
    case 'tone': {
      toneSource(spec.frequency, spec.amplitude);
      return () => toneSource(spec.frequency, spec.amplitude);
    }
    case 'wav': {
      const { data } = loadWav(spec.path);
      return () => pcmLoopSource(data);
    }
    case 'silence':
      return () => silenceSource;
    case 'none':
      return null;
  }
}

/*
 * Frame stamps, for end-to-end measurement: bytes 0-3 the ASCII magic "VGS1", 4-7 the sequence
 * number (uint32 LE), 8-15 the send time (float64 LE, Unix epoch ms with sub-ms precision,
 * `performance.timeOrigin + performance.now()`, comparable across processes on one machine).
 * The stamp overwrites the first 8 samples of the frame.
 */
export const STAMP_BYTES = 16;
const STAMP_MAGIC = 0x31534756; // "VGS1" read as uint32 LE

export interface FrameStamp {
  seq: number;
  sentAt: number;
}

export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export function writeStamp(frame: Buffer, seq: number, sentAt = epochNow()): void {
  if (frame.length < STAMP_BYTES) throw new Error(`frame too short for a stamp (${frame.length} bytes)`);
  frame.writeUInt32LE(STAMP_MAGIC, 0);
  frame.writeUInt32LE(seq >>> 0, 4);
  frame.writeDoubleLE(sentAt, 8);
}

/** Reads the stamp of a frame, or null when the frame carries none (or was altered on the way). */
export function readStamp(frame: Uint8Array): FrameStamp | null {
  if (frame.length < STAMP_BYTES) return null;
  const buf = Buffer.isBuffer(frame) ? frame : Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  if (buf.readUInt32LE(0) !== STAMP_MAGIC) return null;
  return { seq: buf.readUInt32LE(4), sentAt: buf.readDoubleLE(8) };
}
