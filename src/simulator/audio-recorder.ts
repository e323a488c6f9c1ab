import { FRAME_BYTES, SAMPLE_RATE, BYTES_PER_SAMPLE } from '../audio/constants.js';

export interface ReceivedStats {
  /** Binary frames received from the gateway. */
  frames: number;
  bytes: number;
  /** Frames that arrived while the phone had no active call (the protocol forbids them). */
  strayFrames: number;
  /** Frames whose length was not 640 bytes. */
  oddSizedFrames: number;
  /** performance.now() of the first and last frame. */
  firstAt: number | null;
  lastAt: number | null;
  /** performance.now() of each frame, oldest first, the most recent `maxArrivals` only. */
  arrivalTimes: number[];
}

/** Keeps what the gateway sent into the call, with bounded memory. */
export class AudioRecorder {
  private frames = 0;
  private bytes = 0;
  private stray = 0;
  private odd = 0;
  private firstAt: number | null = null;
  private lastAt: number | null = null;
  private readonly arrivals: Float64Array;
  private pcm: Buffer = Buffer.alloc(0);
  private pcmLength = 0;
  private readonly capBytes: number;

  constructor(opts: { capMs?: number; maxArrivals?: number } = {}) {
    const capMs = opts.capMs ?? 60_000;
    this.capBytes = Math.floor((capMs * SAMPLE_RATE) / 1000) * BYTES_PER_SAMPLE;
    this.arrivals = new Float64Array(opts.maxArrivals ?? Math.max(1, Math.ceil(capMs / 20)));
  }

  record(data: Buffer, inCall: boolean, at = performance.now()): void {
    this.arrivals[this.frames % this.arrivals.length] = at;
    this.frames++;
    this.bytes += data.length;
    if (!inCall) this.stray++;
    if (data.length !== FRAME_BYTES) this.odd++;
    this.firstAt ??= at;
    this.lastAt = at;
    const room = this.capBytes - this.pcmLength;
    if (room <= 0) return;
    const n = Math.min(room, data.length);
    if (this.pcmLength + n > this.pcm.length) {
      // Grows by doubling, so many simulators with short calls stay small.
      const size = Math.min(this.capBytes, Math.max(64 * FRAME_BYTES, this.pcm.length * 2, this.pcmLength + n));
      const grown = Buffer.alloc(size);
      this.pcm.copy(grown, 0, 0, this.pcmLength);
      this.pcm = grown;
    }
    data.copy(this.pcm, this.pcmLength, 0, n);
    this.pcmLength += n;
  }

  stats(): ReceivedStats {
    const kept = Math.min(this.frames, this.arrivals.length);
    const arrivalTimes: number[] = new Array<number>(kept);
    for (let i = 0; i < kept; i++) {
      arrivalTimes[i] = this.arrivals[(this.frames - kept + i) % this.arrivals.length] ?? 0;
    }
    return {
      frames: this.frames,
      bytes: this.bytes,
      strayFrames: this.stray,
      oddSizedFrames: this.odd,
      firstAt: this.firstAt,
      lastAt: this.lastAt,
      arrivalTimes,
    };
  }

  /** A copy of the PCM received so far (up to the cap). */
  audio(): Buffer {
    return Buffer.from(this.pcm.subarray(0, this.pcmLength));
  }

  reset(): void {
    this.frames = 0;
    this.bytes = 0;
    this.stray = 0;
    this.odd = 0;
    this.firstAt = null;
    this.lastAt = null;
    this.pcm = Buffer.alloc(0);
    this.pcmLength = 0;
  }
}
