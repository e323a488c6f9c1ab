import { describe, expect, it } from 'vitest';
import { DeliveryQueue, type QueuedJob } from './queue.js';

const SLOW = 'http://slow.example';
const FAST = 'http://fast.example';

let nextId = 0;
const job = (callId: string, origin = FAST, extra: Partial<QueuedJob> = {}): QueuedJob => ({ id: ++nextId, callId, origin, attempt: 1, dueAt: 0, ...extra });
const ids = (jobs: QueuedJob[]) => jobs.map((j) => j.id);

function queueOf(jobs: QueuedJob[], limits = { perReceiver: 4, total: 64 }): DeliveryQueue {
  const q = new DeliveryQueue(limits);
  for (const j of jobs) q.add(j);
  return q;
}

describe('DeliveryQueue', () => {
  it("sends one call's first attempts one at a time, in order, beside other calls", () => {
    const [a1, a2, b1, a3] = [job('a'), job('a'), job('b'), job('a')] as const;
    const q = queueOf([a1, a2, b1, a3]);
    expect(ids(q.take(0))).toEqual([a1.id, b1.id]);
    expect(q.take(0)).toEqual([]);
    q.finish(a1.id, null);
    expect(ids(q.take(0))).toEqual([a2.id]);
    q.finish(b1.id, null);
    q.finish(a2.id, null);
    expect(ids(q.take(0))).toEqual([a3.id]);
    q.finish(a3.id, null);
    expect(q.size).toBe(0);
  });

  it('does not hold later events back behind a retry, and sends the retry when it is due', () => {
    const [a1, a2] = [job('a'), job('a')] as const;
    const q = queueOf([a1, a2]);
    expect(ids(q.take(0))).toEqual([a1.id]);
    q.finish(a1.id, { attempt: 2, dueAt: 5000 });
    expect(ids(q.take(10))).toEqual([a2.id]);
    expect(q.nextDueAt()).toBe(5000);
    expect(q.take(4999)).toEqual([]);
    expect(q.take(5000)).toEqual([{ ...a1, attempt: 2, dueAt: 5000 }]);
  });

  it('keeps a job that could not be recorded at its attempt, so it still holds the call', () => {
    const [a1, a2] = [job('a'), job('a')] as const;
    const q = queueOf([a1, a2]);
    q.take(0);
    q.finish(a1.id, { attempt: 1, dueAt: 1000 });
    expect(q.take(999)).toEqual([]);
    expect(ids(q.take(1000))).toEqual([a1.id]);
  });

  it('gives each receiver its own slots: a hanging one never takes another receiver\'s', () => {
    const hanging = Array.from({ length: 20 }, (_, i) => job(`slow${i}`, SLOW));
    const healthy = job('fast');
    const q = queueOf([...hanging, healthy], { perReceiver: 4, total: 64 });
    const first = q.take(0);
    expect(first.filter((j) => j.origin === SLOW)).toHaveLength(4);
    expect(ids(first.filter((j) => j.origin === FAST))).toEqual([healthy.id]);
    q.finish(healthy.id, null);
    const later = job('fast2');
    q.add(later);
    expect(ids(q.take(1))).toEqual([later.id]);
  });

  it('does not let a backlog of one receiver delay a job queued after it', () => {
    const dead = Array.from({ length: 600 }, (_, i) => job(`dead${i % 3}`, SLOW));
    const unrelated = job('other');
    const q = queueOf([...dead, unrelated]);
    expect(ids(q.take(0))).toContain(unrelated.id);
  });

  it('takes turns between receivers for the total', () => {
    const a = Array.from({ length: 5 }, (_, i) => job(`a${i}`, SLOW));
    const b = Array.from({ length: 5 }, (_, i) => job(`b${i}`, FAST));
    const q = queueOf([...a, ...b], { perReceiver: 10, total: 3 });
    expect(q.take(0).map((j) => j.origin)).toEqual([SLOW, FAST, SLOW]);
    q.finish(a[0]!.id, null);
    expect(q.take(0).map((j) => j.origin)).toEqual([FAST]);
    expect(q.inFlight).toBe(3);
  });

  it('waits for an older first attempt that becomes known late', () => {
    const older = job('a');
    const newer = job('a');
    const q = queueOf([newer]);
    q.add(older);
    expect(ids(q.take(0))).toEqual([older.id]);
    q.finish(older.id, null);
    expect(ids(q.take(0))).toEqual([newer.id]);
    q.add(newer);
    expect(q.size).toBe(1);
  });

  it('forgets everything on clear', () => {
    const q = queueOf([job('a'), job('b', SLOW, { attempt: 2, dueAt: 100 })]);
    q.take(0);
    q.clear();
    expect([q.size, q.inFlight, q.nextDueAt()]).toEqual([0, 0, undefined]);
  });
});
