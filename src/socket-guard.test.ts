import { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { HeldWrites } from './socket-writes.js';

/** A socket's writable side as the kernel would take it (every system call is one `_write` or `_writev`), with its held writes. */
function transport(o: { takes: boolean }): Writable & { calls: string[][]; held: HeldWrites } {
  const calls: string[][] = [];
  const w = new Writable({
    write(chunk: Buffer, _encoding, done) {
      calls.push([chunk.toString()]);
      if (o.takes) done();
    },
    writev(chunks, done) {
      calls.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      if (o.takes) done();
    },
  });
  return Object.assign(w, { calls, held: new HeldWrites(w) });
}

describe('HeldWrites', () => {
  it('holds what a turn writes to a socket and lets it go, in order, in one write when the turn ends', async () => {
    const a = transport({ takes: true });
    const b = transport({ takes: true });
    a.held.hold();
    a.write('frame 1');
    b.held.hold();
    b.write('frame A');
    a.held.hold();
    a.write('frame 2');
    a.write('close');
    expect(a.calls).toEqual([]);
    expect(b.calls).toEqual([]);
    await nextTurn();
    expect(a.calls).toEqual([['frame 1', 'frame 2', 'close']]);
    expect(b.calls).toEqual([['frame A']]);
    // The next turn holds again, from scratch.
    a.held.hold();
    a.write('frame 3');
    expect(a.calls).toHaveLength(1);
    await nextTurn();
    expect(a.calls).toEqual([['frame 1', 'frame 2', 'close'], ['frame 3']]);
  });

  it('counts as unsent only what the peer had not taken when the turn began, unless one turn holds over 4 MiB', async () => {
    const slow = transport({ takes: false });
    slow.write(Buffer.alloc(1000));
    expect(slow.held.hold()).toBe(1000);
    slow.write(Buffer.alloc(64 * 1024));
    expect(slow.held.hold()).toBe(1000);
    slow.write(Buffer.alloc(4 * 1024 * 1024));
    expect(slow.held.hold()).toBe(1000 + 64 * 1024 + 4 * 1024 * 1024);
    await nextTurn();
    // The next turn starts from what the peer has still not taken.
    expect(slow.held.hold()).toBe(slow.writableLength);
  });

  it('lets the other sockets go when one of them fails to', async () => {
    const broken = transport({ takes: true });
    broken.uncork = () => {
      throw new Error('uncork failed');
    };
    const fine = transport({ takes: true });
    broken.held.hold();
    broken.write('never');
    fine.held.hold();
    fine.write('frame');
    await nextTurn();
    expect(fine.calls).toEqual([['frame']]);
    expect(broken.destroyed).toBe(true);
  });

  it('lets a socket destroyed during the turn go without writing to it', async () => {
    const gone = transport({ takes: true });
    gone.held.hold();
    gone.write('lost');
    gone.destroy();
    await nextTurn();
    expect(gone.calls).toEqual([]);
  });
});
