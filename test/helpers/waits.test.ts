import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Recorded, until } from './waits.js';

type Msg = { type: string; n?: number };

describe('Recorded', () => {
  it('finds a message recorded before the wait began', async () => {
    const stream = new Recorded<Msg>('phone');
    stream.add({ type: 'welcome' });
    stream.add({ type: 'command', n: 1 });
    await expect(stream.next((m) => m.type === 'welcome', { timeoutMs: 50 })).resolves.toEqual({ type: 'welcome' });
  });

  it('resolves with a message that arrives while it waits', async () => {
    const stream = new Recorded<Msg>('phone');
    const waiting = stream.next((m) => m.type === 'command');
    stream.add({ type: 'welcome' });
    stream.add({ type: 'command', n: 2 });
    await expect(waiting).resolves.toEqual({ type: 'command', n: 2 });
  });

  it('times out when nothing matches, listing what it saw', async () => {
    const stream = new Recorded<Msg>('raw phone');
    stream.add({ type: 'welcome' });
    stream.add({ type: 'event.ack', n: 7 });
    await expect(stream.next((m) => m.type === 'command', { timeoutMs: 30, what: 'a dial command' })).rejects.toThrow(
      'raw phone: no a dial command within 30 ms; seen 2: {"type":"welcome"}, {"type":"event.ack","n":7}',
    );
  });

  it('nextNew skips what was already recorded', async () => {
    const stream = new Recorded<Msg>();
    stream.add({ type: 'ack', n: 1 });
    const waiting = stream.nextNew((m) => m.type === 'ack');
    stream.add({ type: 'ack', n: 2 });
    await expect(waiting).resolves.toEqual({ type: 'ack', n: 2 });
  });

  it('nth counts matches over the record and the arrivals', async () => {
    const stream = new Recorded<string>();
    stream.add('a');
    stream.add('b');
    const third = stream.nth(2, (s) => s !== 'b');
    stream.add('b');
    stream.add('c');
    stream.add('d');
    await expect(third).resolves.toBe('d');
    await expect(stream.nth(0)).resolves.toBe('a');
  });

  it('hands each item to one claiming wait', async () => {
    const stream = new Recorded<Msg>();
    stream.add({ type: 'x', n: 1 });
    const first = stream.next((m) => m.type === 'x', { claim: true });
    const second = stream.next((m) => m.type === 'x', { claim: true });
    const third = stream.next((m) => m.type === 'x', { claim: true });
    stream.add({ type: 'x', n: 2 });
    stream.add({ type: 'x', n: 3 });
    expect([await first, await second, await third].map((m) => m.n)).toEqual([1, 2, 3]);
  });

  it('fails a wait at once when the stream ended without a match', async () => {
    const stream = new Recorded<Msg>('gateway log');
    stream.add({ type: 'starting' });
    const waiting = stream.next((m) => m.type === 'listening', { timeoutMs: 10_000, what: 'listening' });
    stream.end('the process exited');
    await expect(waiting).rejects.toThrow('gateway log: the process exited before listening; seen 1');
    await expect(stream.next((m) => m.type === 'starting')).resolves.toEqual({ type: 'starting' });
  });
});

describe('until', () => {
  it('polls a read until it is done and returns the last value', async () => {
    let n = 0;
    await expect(until(async () => ++n, (v) => v >= 3, { intervalMs: 1 })).resolves.toBe(3);
  });

  it('checks again on every wake instead of polling', async () => {
    const changes = new EventEmitter();
    let state = 'ringing';
    let reads = 0;
    const reached = until(
      () => {
        reads++;
        return state;
      },
      (s) => s === 'active',
      { wake: (poke) => (changes.on('change', poke), () => changes.off('change', poke)) },
    );
    state = 'active';
    changes.emit('change');
    await expect(reached).resolves.toBe('active');
    expect(reads).toBeLessThanOrEqual(3);
    expect(changes.listenerCount('change')).toBe(0);
  });

  it('fails with what it waited for and the last value read', async () => {
    await expect(until(() => ({ state: 'ringing' }), (c) => c.state === 'ended', { timeoutMs: 30, what: 'call ended' })).rejects.toThrow(
      'call ended not reached within 30 ms; last value: {"state":"ringing"}',
    );
    await expect(until(() => false, { timeoutMs: 20, what: 'flag', wake: () => () => undefined })).rejects.toThrow('flag not reached within 20 ms');
  });
});
