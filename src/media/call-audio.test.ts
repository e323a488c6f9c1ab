import { describe, expect, it } from 'vitest';
import { AudioDrops, FRAME_BYTES } from '../audio/index.js';
import { CallAudio, MARK_ALLOWANCE, MAX_QUEUED_BYTES, maxPendingMarks } from './call-audio.js';

describe('CallAudio', () => {
  it('drops what a source sends past two minutes of unplayed audio, and says so once per overflow', () => {
    const sent: Buffer[] = [];
    const drops = new AudioDrops();
    const audio = new CallAudio('call_x', 'phone-x', { send: (frame) => sent.push(frame) > 0 }, drops);
    let overflows = 0;
    const source = audio.source('agent', { overflow: () => overflows++ });
    const chunk = Buffer.alloc(64_000, 1);
    for (let i = 0; i < MAX_QUEUED_BYTES / chunk.length; i++) source.push(chunk);
    expect(source.queuedBytes()).toBe(MAX_QUEUED_BYTES);
    source.push(chunk);
    source.push(chunk);
    expect(source.queuedBytes()).toBe(MAX_QUEUED_BYTES);
    expect(overflows).toBe(1);
    expect(drops.frames().queue_full).toBe((2 * chunk.length) / FRAME_BYTES);

    // Once it has played some, the source may send again; a later overflow is reported again.
    for (let i = 0; i < 100; i++) audio.tick();
    expect(sent).toHaveLength(100);
    source.push(Buffer.alloc(100 * FRAME_BYTES, 2));
    expect(source.queuedBytes()).toBe(MAX_QUEUED_BYTES);
    source.push(chunk);
    expect(overflows).toBe(2);
  });

  it('leaves other sources alone when one overflows', () => {
    const audio = new CallAudio('call_y', 'phone-y', { send: () => true }, new AudioDrops());
    const greedy = audio.source('greedy');
    const polite = audio.source('polite');
    greedy.push(Buffer.alloc(MAX_QUEUED_BYTES));
    greedy.push(Buffer.alloc(FRAME_BYTES));
    polite.push(Buffer.alloc(FRAME_BYTES));
    expect(polite.queuedBytes()).toBe(FRAME_BYTES);
  });

  it('counts the frames it could not pass on: to a listener whose socket is gone, to a phone that is gone', () => {
    const drops = new AudioDrops();
    let phoneThere = true;
    const audio = new CallAudio('call_z', 'phone-z', { send: () => phoneThere }, drops);
    const heard: Buffer[] = [];
    audio.listen((frame) => void heard.push(frame));
    let open = true;
    audio.listen(() => open);
    const frame = Buffer.alloc(FRAME_BYTES);
    audio.fromPhone(frame);
    open = false;
    audio.fromPhone(frame);
    audio.fromPhone(frame);
    expect(heard).toHaveLength(3);
    expect(audio.framesIn).toBe(3);
    expect(drops.frames().consumer_gone).toBe(2);

    audio.source('agent').push(Buffer.alloc(3 * FRAME_BYTES, 1));
    audio.tick();
    phoneThere = false;
    audio.tick();
    audio.tick();
    audio.tick();
    expect(audio.framesOut).toBe(1);
    expect(drops.frames().phone_gone).toBe(2);
  });

  it('refuses a mark past the bound of its queued audio, saying how many wait for how much, and keeps the ones it has', () => {
    const audio = new CallAudio('call_m', 'phone-m', { send: () => true }, new AudioDrops());
    const played: string[] = [];
    const source = audio.source('agent', { markPlayed: (name) => played.push(name) });
    source.push(Buffer.alloc(FRAME_BYTES));
    const bound = maxPendingMarks(FRAME_BYTES);
    expect(bound).toBe(MARK_ALLOWANCE + 2);
    for (let i = 0; i < bound; i++) expect(source.mark(`m${i}`)).toBeNull();
    expect(source.mark('one too many')).toEqual({ waiting: bound, queuedBytes: FRAME_BYTES });
    audio.tick();
    expect(played).toEqual(Array.from({ length: bound }, (_, i) => `m${i}`));
    // With nothing queued, a mark is told back at once.
    expect(source.mark('now')).toBeNull();
    expect(played.at(-1)).toBe('now');
  });

  it('relays a real-time source to the phone as its frames come once the clock has ticked, and counts every frame', () => {
    const sent: number[] = [];
    const audio = new CallAudio('call_c', 'phone-c', { send: (frame) => sent.push(frame[0]!) > 0 }, new AudioDrops());
    const source = audio.source('echo');
    for (let t = 0; t < 5; t++) audio.tick();
    for (let n = 0; n < 100; n++) {
      source.push(Buffer.alloc(FRAME_BYTES, n & 0xff));
      // Sent when pushed, not at the tick.
      expect(sent).toHaveLength(n + 1);
      audio.tick();
    }
    expect(sent).toEqual(Array.from({ length: 100 }, (_, i) => i & 0xff));
    expect(audio.framesOut).toBe(100);
    expect(source.queuedBytes()).toBe(0);
  });
});
