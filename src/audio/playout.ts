import { endianness } from 'node:os';
import { FRAME_BYTES, FRAME_SAMPLES } from './constants.js';
import { Continuity } from './continuity.js';
import { finishSamples, newSamples } from './pcm.js';

/** A mark of `source` is told back: its audio has played, or (`cleared`) was dropped by `clear`/`remove`. */
export type MarkListener = (source: string, name: string, cleared: boolean) => void;

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

/**
 * One source's queue in a call's play-out: what it pushed and has not played yet, and its marks.
 * Its source holds it, so a push finds its queue without a lookup. The fields are the play-out
 * buffer's to read; a source uses the methods.
 */
export class SourceQueue {
  readonly ring = new SampleRing();
  /** First byte of a sample whose second byte has not arrived, or -1. */
  oddByte = -1;
  /** Bytes of whole samples ever queued and ever played (or cleared). */
  written = 0;
  played = 0;
  marks: { name: string; at: number }[] = [];
  /** Removed: what it is given now is dropped (the buffer no longer plays it). */
  removed = false;
  /** When its last partial frame may be padded (continuity.ts). */
  readonly continuity = new Continuity();

  constructor(
    readonly id: string,
    private readonly buffer: PlayoutBuffer,
  ) {}

  push(pcm: Buffer): void {
    if (pcm.length === 0 || this.removed) return;
    let start = 0;
    const before = this.written;
    if (this.oddByte >= 0) {
      this.ring.writePair(this.oddByte, pcm[0]!);
      this.oddByte = -1;
      this.written += 2;
      start = 1;
    }
    const end = start + ((pcm.length - start) & ~1);
    if (end > start) this.ring.write(pcm, start, end);
    this.written += end - start;
    this.buffer.queued += this.written - before;
    if (end < pcm.length) this.oddByte = pcm[end]!;
    this.continuity.pushed(pcm.length, this.buffer.now());
  }

  /** Fires at once when nothing of this source is pending, else once the audio pushed before it has played. */
  mark(name: string): void {
    if (this.played >= this.written) return this.buffer.markPlayed(this.id, name, false);
    this.marks.push({ name, at: this.written });
    this.continuity.marked();
  }

  /** Drops the unplayed audio and fires the pending marks at once (as cleared). */
  clear(): void {
    this.buffer.queued -= this.ring.size;
    this.ring.reset();
    this.oddByte = -1;
    this.played = this.written;
    this.continuity.cleared();
    const marks = this.marks;
    this.marks = [];
    for (const m of marks) this.buffer.markPlayed(this.id, m.name, true);
  }

  /** True when this source plays in a frame built now: it has a whole frame, or a partial one that may be padded at `padAt` (continuity.ts). */
  plays(padAt: number): boolean {
    const size = this.ring.size;
    return size >= FRAME_BYTES || (size > 0 && this.continuity.mayPad(padAt));
  }

  /** Like `clear`, and the buffer forgets the source. */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    this.buffer.forget(this);
    this.clear();
  }

  /** Bytes of whole samples queued and not yet played. */
  pendingBytes(): number {
    return this.ring.size;
  }

  /** Marks still waiting for their audio to play. */
  pendingMarks(): number {
    return this.marks.length;
  }
}

/**
 * The per-call play-out buffer: one queue per source, mixed into one 640-byte frame per tick.
 *
 * Marks: a mark fires once every whole sample its source pushed before it has been played by
 * `nextFrame()` (after that frame is built), or been dropped by `clear`/`remove`. When nothing of
 * its source is pending, `mark()` fires it at once, synchronously. A lone trailing byte (half a
 * sample) is not pending audio: it waits for its other half and never delays a mark.
 *
 * Contiguity: a source whose queue ends in a partial frame (less than 640 bytes) while it is still
 * streaming sits out of the frame: the partial frame waits for the rest of its audio, and is padded
 * with silence only once the source has stopped (continuity.ts). `padAt` is the time that rule is
 * asked at; Infinity (the default) pads every partial frame, -Infinity none.
 */
export class PlayoutBuffer {
  /** @internal Bytes queued by every source, kept by the queues: an idle call's tick reads one number. */
  queued = 0;
  private readonly sources = new Map<string, SourceQueue>();
  /** The same sources in an array: walked several times per frame, with no iterator to allocate. */
  private readonly list: SourceQueue[] = [];
  private readonly acc = new Int32Array(FRAME_SAMPLES);
  /** The sources playing in the frame being built (reused: no array per tick). */
  private readonly playing: (SourceQueue | undefined)[] = [];

  constructor(
    private readonly onMark: MarkListener = () => {},
    /** The clock (ms) the sources' pushes are timed by; the pacer's. */
    readonly now: () => number = () => performance.now(),
  ) {}

  /** The queue of the source `id`, made on first use. */
  source(id: string): SourceQueue {
    let s = this.sources.get(id);
    if (!s) {
      s = new SourceQueue(id, this);
      this.sources.set(id, s);
      this.list.push(s);
    }
    return s;
  }

  /** @internal A mark of `source` has played (or been cleared). */
  markPlayed(source: string, name: string, cleared: boolean): void {
    this.onMark(source, name, cleared);
  }

  /** @internal Called by `SourceQueue.remove`. */
  forget(s: SourceQueue): void {
    if (this.sources.get(s.id) === s) this.sources.delete(s.id);
    const at = this.list.indexOf(s);
    if (at >= 0) this.list.splice(at, 1);
  }

  /** The mix of the next 20 ms of every source that plays at `padAt` (see the class), or null when none does. */
  nextFrame(padAt = Infinity): Buffer | null {
    if (this.queued === 0) return null;
    const list = this.list;
    let alone: SourceQueue | undefined;
    let count = 0;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      if (!s.plays(padAt)) continue;
      if (count === 0) alone = s;
      count += 1;
    }
    if (count === 0) return null;
    if (count === 1) return this.playAlone(alone!);
    for (let i = 0, n = 0; i < list.length; i++) if (list[i]!.plays(padAt)) this.playing[n++] = list[i];
    return this.mix(count);
  }

  /** True when some source plays at `padAt`: `nextFrame(padAt)` builds a frame. */
  frameReady(padAt = Infinity): boolean {
    if (this.queued === 0) return false;
    const list = this.list;
    for (let i = 0; i < list.length; i++) if (list[i]!.plays(padAt)) return true;
    return false;
  }

  /** Bytes queued by the sources that play at `padAt`: the audio the call could play now. */
  playableBytes(padAt = Infinity): number {
    if (this.queued === 0) return 0;
    const list = this.list;
    let bytes = 0;
    for (let i = 0; i < list.length; i++) if (list[i]!.plays(padAt)) bytes += list[i]!.ring.size;
    return bytes;
  }

  /** One source alone: its next 20 ms are the frame (padded with silence), then the marks it reached fire. */
  private playAlone(s: SourceQueue): Buffer {
    const bytes = Math.min(s.ring.size, FRAME_BYTES);
    const frame = Buffer.allocUnsafe(FRAME_BYTES);
    s.ring.copyOut(frame, bytes);
    if (bytes < FRAME_BYTES) frame.fill(0, bytes);
    s.played += bytes;
    this.queued -= bytes;
    if (s.marks.length > 0 && s.marks[0]!.at <= s.played) {
      const due: string[] = [];
      while (s.marks.length > 0 && s.marks[0]!.at <= s.played) due.push(s.marks.shift()!.name);
      for (const name of due) this.onMark(s.id, name, false);
    }
    return frame;
  }

  /** Mixes the next 20 ms of `this.playing[0..count)` into a new frame, then fires the marks it reached. */
  private mix(count: number): Buffer {
    const playing = this.playing;
    const acc = this.acc;
    acc.fill(0);
    for (let i = 0; i < count; i++) {
      const s = playing[i]!;
      const bytes = Math.min(s.ring.size, FRAME_BYTES);
      s.ring.mixInto(acc, bytes);
      s.played += bytes;
      this.queued -= bytes;
    }
    const out = newSamples(FRAME_SAMPLES);
    for (let k = 0; k < FRAME_SAMPLES; k++) {
      const v = acc[k]!;
      out.samples[k] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
    }
    const frame = finishSamples(out.bytes);
    let due: [string, string][] | undefined;
    for (let i = 0; i < count; i++) {
      const s = playing[i]!;
      playing[i] = undefined;
      while (s.marks.length > 0 && s.marks[0]!.at <= s.played) (due ??= []).push([s.id, s.marks.shift()!.name]);
    }
    if (due) for (const [id, name] of due) this.onMark(id, name, false);
    return frame;
  }

  /** Bytes of whole samples queued and not yet played, of every source. */
  pendingBytes(): number {
    return this.queued;
  }

  isIdle(): boolean {
    return this.queued === 0;
  }
}
