import { endianness } from 'node:os';
import { FRAME_BYTES, FRAME_SAMPLES } from './constants.js';
import { finishSamples, newSamples } from './pcm.js';

export type MarkListener = (source: string, name: string) => void;

const INITIAL_CAPACITY = 4096;
/** A ring grown by a burst (say a minute of synthesized speech) is given back once drained. */
const IDLE_CAPACITY_LIMIT = 64 * 1024;
const LITTLE_ENDIAN = endianness() === 'LE';

/** FIFO of whole s16le samples. Capacity and head stay even, so no sample straddles the wrap. */
class SampleRing {
  private bytes = ringBytes(INITIAL_CAPACITY);
  /** The same memory as samples (read only on a little-endian machine). */
  private samples = new Int16Array(this.bytes.buffer, 0, INITIAL_CAPACITY >> 1);
  private head = 0;
  size = 0;

  write(src: Buffer, start: number, end: number): void {
    const n = end - start;
    if (this.size + n > this.bytes.length) this.grow(this.size + n);
    const cap = this.bytes.length;
    const tail = (this.head + this.size) % cap;
    const first = Math.min(n, cap - tail);
    src.copy(this.bytes, tail, start, start + first);
    if (first < n) src.copy(this.bytes, 0, start + first, end);
    this.size += n;
  }

  writePair(lo: number, hi: number): void {
    if (this.size + 2 > this.bytes.length) this.grow(this.size + 2);
    const tail = (this.head + this.size) % this.bytes.length;
    this.bytes[tail] = lo;
    this.bytes[tail + 1] = hi;
    this.size += 2;
  }

  /** Copies the next `count` (even) bytes to `out` and drops them: one source alone needs no mixing. */
  copyOut(out: Buffer, count: number): void {
    const cap = this.bytes.length;
    const first = Math.min(count, cap - this.head);
    this.bytes.copy(out, 0, this.head, this.head + first);
    if (first < count) this.bytes.copy(out, first, 0, count - first);
    this.advance(count);
  }

  /** Adds the next `count` (even) bytes to `acc` as samples and drops them. */
  mixInto(acc: Int32Array, count: number): void {
    const n = count >> 1;
    if (LITTLE_ENDIAN) {
      const samples = this.samples;
      const at = this.head >> 1;
      const first = Math.min(n, samples.length - at);
      for (let k = 0; k < first; k++) acc[k]! += samples[at + k]!;
      for (let k = first; k < n; k++) acc[k]! += samples[k - first]!;
    } else {
      const cap = this.bytes.length;
      let p = this.head;
      for (let k = 0; k < n; k++) {
        acc[k]! += this.bytes.readInt16LE(p);
        p += 2;
        if (p === cap) p = 0;
      }
    }
    this.advance(count);
  }

  reset(): void {
    this.head = 0;
    this.size = 0;
    if (this.bytes.length > IDLE_CAPACITY_LIMIT) this.replace(ringBytes(INITIAL_CAPACITY));
  }

  private advance(count: number): void {
    this.head = (this.head + count) % this.bytes.length;
    this.size -= count;
    if (this.size === 0) this.reset();
  }

  private grow(needed: number): void {
    let cap = this.bytes.length * 2;
    while (cap < needed) cap *= 2;
    const next = ringBytes(cap);
    const first = Math.min(this.size, this.bytes.length - this.head);
    this.bytes.copy(next, 0, this.head, this.head + first);
    this.bytes.copy(next, first, 0, this.size - first);
    this.replace(next);
    this.head = 0;
  }

  private replace(bytes: Buffer): void {
    this.bytes = bytes;
    this.samples = new Int16Array(bytes.buffer, 0, bytes.length >> 1);
  }
}

/** A ring's memory: its own ArrayBuffer, so its Int16Array view starts at offset 0. */
const ringBytes = (capacity: number): Buffer => Buffer.from(new ArrayBuffer(capacity));

interface Source {
  id: string;
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
  /** The same sources in an array: walked several times per frame, with no iterator to allocate. */
  private readonly list: Source[] = [];
  private readonly acc = new Int32Array(FRAME_SAMPLES);
  /** The sources playing in the frame being built (reused: no array per tick). */
  private readonly playing: (Source | undefined)[] = [];

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
    const at = this.list.indexOf(s);
    if (at >= 0) this.list.splice(at, 1);
    this.drop(source, s);
  }

  /** The mix of the next 20 ms of every source, or null when no source has audio. */
  nextFrame(): Buffer | null {
    let count = 0;
    const list = this.list;
    for (let i = 0; i < list.length; i++) if (list[i]!.ring.size > 0) this.playing[count++] = list[i];
    return this.play(count);
  }

  /** True when some source has audio and every source that has any has a whole frame: a frame of nobody's silence. */
  wholeFrameReady(): boolean {
    let any = false;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const size = list[i]!.ring.size;
      if (size === 0) continue;
      if (size < FRAME_BYTES) return false;
      any = true;
    }
    return any;
  }

  /** Plays the next 20 ms of `this.playing[0..count)` into a new frame, then fires the marks it reached. */
  private play(count: number): Buffer | null {
    if (count === 0) return null;
    const playing = this.playing;
    let frame: Buffer;
    if (count === 1) {
      // One source alone: its bytes are the frame.
      const s = playing[0]!;
      const bytes = Math.min(s.ring.size, FRAME_BYTES);
      frame = Buffer.allocUnsafe(FRAME_BYTES);
      s.ring.copyOut(frame, bytes);
      if (bytes < FRAME_BYTES) frame.fill(0, bytes);
      s.played += bytes;
    } else {
      const acc = this.acc;
      acc.fill(0);
      for (let i = 0; i < count; i++) {
        const s = playing[i]!;
        const bytes = Math.min(s.ring.size, FRAME_BYTES);
        s.ring.mixInto(acc, bytes);
        s.played += bytes;
      }
      const out = newSamples(FRAME_SAMPLES);
      for (let k = 0; k < FRAME_SAMPLES; k++) {
        const v = acc[k]!;
        out.samples[k] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      }
      frame = finishSamples(out.bytes);
    }
    let due: [string, string][] | undefined;
    for (let i = 0; i < count; i++) {
      const s = playing[i]!;
      playing[i] = undefined;
      while (s.marks.length > 0 && s.marks[0]!.at <= s.played) (due ??= []).push([s.id, s.marks.shift()!.name]);
    }
    if (due) for (const [id, name] of due) this.onMark(id, name);
    return frame;
  }

  /** Bytes of whole samples queued and not yet played, for one source or all. */
  pendingBytes(source?: string): number {
    if (source !== undefined) return this.sources.get(source)?.ring.size ?? 0;
    let total = 0;
    const list = this.list;
    for (let i = 0; i < list.length; i++) total += list[i]!.ring.size;
    return total;
  }

  /** Marks of a source still waiting for their audio to play. */
  pendingMarks(source: string): number {
    return this.sources.get(source)?.marks.length ?? 0;
  }

  isIdle(): boolean {
    const list = this.list;
    for (let i = 0; i < list.length; i++) if (list[i]!.ring.size > 0) return false;
    return true;
  }

  private sourceFor(id: string): Source {
    let s = this.sources.get(id);
    if (!s) {
      s = { id, ring: new SampleRing(), oddByte: -1, written: 0, played: 0, marks: [] };
      this.sources.set(id, s);
      this.list.push(s);
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
