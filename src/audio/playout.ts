import { FRAME_BYTES, FRAME_SAMPLES } from './constants.js';

export type MarkListener = (source: string, name: string) => void;

const INITIAL_CAPACITY = 4096;
/** A ring grown by a burst (say a minute of synthesized speech) is given back once drained. */
const IDLE_CAPACITY_LIMIT = 64 * 1024;

/** FIFO of whole s16le samples. Capacity and head stay even, so no sample straddles the wrap. */
class SampleRing {
  private buf = Buffer.allocUnsafe(INITIAL_CAPACITY);
  private head = 0;
  size = 0;

  write(src: Buffer, start: number, end: number): void {
    const n = end - start;
    if (this.size + n > this.buf.length) this.grow(this.size + n);
    const cap = this.buf.length;
    const tail = (this.head + this.size) % cap;
    const first = Math.min(n, cap - tail);
    src.copy(this.buf, tail, start, start + first);
    if (first < n) src.copy(this.buf, 0, start + first, end);
    this.size += n;
  }

  writePair(lo: number, hi: number): void {
    if (this.size + 2 > this.buf.length) this.grow(this.size + 2);
    const tail = (this.head + this.size) % this.buf.length;
    this.buf[tail] = lo;
    this.buf[tail + 1] = hi;
    this.size += 2;
  }

  /** Adds the next `bytes` (even) bytes to `acc` as samples and drops them. */
  mixInto(acc: Int32Array, bytes: number): void {
    const buf = this.buf;
    const cap = buf.length;
    let p = this.head;
    for (let k = 0; k < bytes >> 1; k++) {
      acc[k]! += buf.readInt16LE(p);
      p += 2;
      if (p === cap) p = 0;
    }
    this.head = p;
    this.size -= bytes;
    if (this.size === 0) this.reset();
  }

  reset(): void {
    this.head = 0;
    this.size = 0;
    if (this.buf.length > IDLE_CAPACITY_LIMIT) this.buf = Buffer.allocUnsafe(INITIAL_CAPACITY);
  }

  private grow(needed: number): void {
    let cap = this.buf.length * 2;
    while (cap < needed) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    const first = Math.min(this.size, this.buf.length - this.head);
    this.buf.copy(next, 0, this.head, this.head + first);
    this.buf.copy(next, first, 0, this.size - first);
    this.buf = next;
    this.head = 0;
  }
}

interface Source {
  ring: SampleRing;
  /** First byte of a sample whose second byte has not arrived, or -1. */
  oddByte: number;
  /** Bytes of whole samples ever queued and ever played (or cleared). */
  written: number;
  played: number;
  marks: { name: string; at: number }[];
}

/**
 * The per-call play-out buffer: one queue per source, mixed into one 640-byte frame per tick.
 *
 * Marks: a mark fires once every whole sample its source pushed before it has been played by
 * `nextFrame()` (after that frame is built), or been dropped by `clear`/`removeSource`. When
 * nothing of its source is pending, `mark()` fires it at once, synchronously. A lone trailing
 * byte (half a sample) is not pending audio: it waits for its other half and never delays a mark.
 */
export class PlayoutBuffer {
  private readonly sources = new Map<string, Source>();
  private readonly acc = new Int32Array(FRAME_SAMPLES);

  constructor(private readonly onMark: MarkListener = () => {}) {}

  push(source: string, pcm: Buffer): void {
    if (pcm.length === 0) return;
    const s = this.sourceFor(source);
    let start = 0;
    if (s.oddByte >= 0) {
      s.ring.writePair(s.oddByte, pcm[0]!);
      s.oddByte = -1;
      s.written += 2;
      start = 1;
    }
    const end = start + ((pcm.length - start) & ~1);
    if (end > start) s.ring.write(pcm, start, end);
    s.written += end - start;
    if (end < pcm.length) s.oddByte = pcm[end]!;
  }

  mark(source: string, name: string): void {
    const s = this.sources.get(source);
    if (!s || s.played >= s.written) this.onMark(source, name);
    else s.marks.push({ name, at: s.written });
  }

  /** Drops the source's unplayed audio and fires its pending marks at once. */
  clear(source: string): void {
    const s = this.sources.get(source);
    if (s) this.drop(source, s);
  }

  /** Like `clear`, and forgets the source. */
  removeSource(source: string): void {
    const s = this.sources.get(source);
    if (!s) return;
    this.sources.delete(source);
    this.drop(source, s);
  }

  /** The mix of the next 20 ms of every source, or null when no source has audio. */
  nextFrame(): Buffer | null {
    const acc = this.acc;
    acc.fill(0);
    let playing = false;
    let due: [string, string][] | undefined;
    for (const [id, s] of this.sources) {
      if (s.ring.size === 0) continue;
      const bytes = Math.min(s.ring.size, FRAME_BYTES);
      s.ring.mixInto(acc, bytes);
      s.played += bytes;
      playing = true;
      while (s.marks.length > 0 && s.marks[0]!.at <= s.played) {
        (due ??= []).push([id, s.marks.shift()!.name]);
      }
    }
    if (!playing) return null;
    const frame = Buffer.allocUnsafe(FRAME_BYTES);
    for (let k = 0; k < FRAME_SAMPLES; k++) {
      const v = acc[k]!;
      frame.writeInt16LE(v > 32767 ? 32767 : v < -32768 ? -32768 : v, k * 2);
    }
    if (due) for (const [id, name] of due) this.onMark(id, name);
    return frame;
  }

  /** Bytes of whole samples queued and not yet played, for one source or all. */
  pendingBytes(source?: string): number {
    if (source !== undefined) return this.sources.get(source)?.ring.size ?? 0;
    let total = 0;
    for (const s of this.sources.values()) total += s.ring.size;
    return total;
  }

  /** Marks of a source still waiting for their audio to play. */
  pendingMarks(source: string): number {
    return this.sources.get(source)?.marks.length ?? 0;
  }

  isIdle(): boolean {
    for (const s of this.sources.values()) if (s.ring.size > 0) return false;
    return true;
  }

  private sourceFor(id: string): Source {
    let s = this.sources.get(id);
    if (!s) {
      s = { ring: new SampleRing(), oddByte: -1, written: 0, played: 0, marks: [] };
      this.sources.set(id, s);
    }
    return s;
  }

  private drop(id: string, s: Source): void {
    s.ring.reset();
    s.oddByte = -1;
    s.played = s.written;
    const marks = s.marks;
    s.marks = [];
    for (const m of marks) this.onMark(id, m.name);
  }
}
