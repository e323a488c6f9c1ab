import { FRAME_BYTES, MulawUpsampler } from '../src/audio/index.js';
import type { Format } from './protocol.js';

/** Bytes per ms of each format's own encoding: raw 16 kHz s16le, vendor 8 kHz mu-law. */
export const BYTES_PER_MS: Record<Format, number> = { raw: 32, vendor: 8 };

/**
 * The echo agent of `--chunk-ms`/`--chunk-bytes`: what it echoes goes back not frame by frame but in
 * chunks of `chunkBytes` (in the stream's own encoding), in real time: chunk k leaves once its audio
 * has all come and its time (k + 1 chunk durations after the first byte) has come, as Pipecat's
 * serializer (758 bytes of mu-law) or the ElevenLabs sample (250 ms) send speech.
 */
export class ChunkedEcho {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private startAt: number | undefined;
  private sent = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly chunkMs: number;

  constructor(
    private readonly chunkBytes: number,
    format: Format,
    private readonly send: (chunk: Buffer) => void,
  ) {
    this.chunkMs = chunkBytes / BYTES_PER_MS[format];
  }

  add(bytes: Buffer): void {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    this.startAt ??= performance.now();
    this.flush();
  }

  close(): void {
    clearTimeout(this.timer);
    this.pending = [];
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = performance.now();
    while (this.pendingBytes >= this.chunkBytes && now >= this.dueAt()) {
      const all = Buffer.concat(this.pending);
      this.send(all.subarray(0, this.chunkBytes));
      this.pending = [all.subarray(this.chunkBytes)];
      this.pendingBytes -= this.chunkBytes;
      this.sent += 1;
    }
    if (this.pendingBytes >= this.chunkBytes) this.timer = setTimeout(() => this.flush(), Math.max(1, this.dueAt() - now));
  }

  private dueAt(): number {
    return this.startAt! + (this.sent + 1) * this.chunkMs;
  }
}

/**
 * One call's fidelity at the phone: the samples the agent sent (16 kHz, as the phone should hear
 * them) against those the phone received. A received zero where the agent's next sample is not
 * zero is inserted silence; any other difference is counted apart.
 */
export class FidelityTrack {
  private queue: Int16Array[] = [];
  private head = 0;
  private readonly upsampler: MulawUpsampler | null;
  private frame: Buffer = Buffer.alloc(0);
  matched = 0;
  inserted = 0;
  other = 0;

  constructor(format: Format) {
    this.upsampler = format === 'vendor' ? new MulawUpsampler() : null;
  }

  /** The agent sent `bytes` in the stream's encoding. */
  sent(bytes: Buffer): void {
    const pcm = this.upsampler ? this.upsampler.push(bytes) : bytes;
    const samples = new Int16Array(pcm.length >> 1);
    for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(2 * i);
    this.queue.push(samples);
  }

  /** The phone received `data` (frames from the gateway, whatever the relay forwarded); calls `frame` with each 640 bytes of it, in order. */
  received(data: Buffer, frame: (f: Buffer) => void): void {
    for (let i = 0; i + 1 < data.length; i += 2) this.compare(data.readInt16LE(i));
    this.frame = this.frame.length === 0 && data.length === FRAME_BYTES ? data : Buffer.concat([this.frame, data]);
    while (this.frame.length >= FRAME_BYTES) {
      frame(this.frame.subarray(0, FRAME_BYTES));
      this.frame = this.frame.subarray(FRAME_BYTES);
    }
  }

  private compare(v: number): void {
    const chunk = this.queue[0];
    if (chunk !== undefined && chunk[this.head] === v) {
      this.matched += 1;
      if (++this.head === chunk.length) {
        this.queue.shift();
        this.head = 0;
      }
    } else if (v === 0) {
      this.inserted += 1;
    } else {
      this.other += 1;
      // Lost step: skip the agent's sample (what the phone got instead is counted above).
      if (chunk !== undefined && ++this.head === chunk.length) {
        this.queue.shift();
        this.head = 0;
      }
    }
  }
}
