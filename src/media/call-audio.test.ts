import { describe, expect, it } from 'vitest';
import { AudioDrops, FRAME_BYTES } from '../audio/index.js';
import { CallAudio, MAX_QUEUED_BYTES } from './call-audio.js';

describe('CallAudio', () => {
  it('drops what a source sends past two minutes of unplayed audio, and says so once per overflow', () => {
    const sent: Buffer[] = [];
    const drops = new AudioDrops();
    const audio = new CallAudio('call_x', 'phone-x', (frame) => sent.push(frame) > 0, drops);
    let overflows = 0;
    const source = audio.source('agent', undefined, () => overflows++);
    const chunk = Buffer.alloc(64_000, 1);
    for (let i = 0; i < MAX_QUEUED_BYTES / chunk.length; i++) source.push(chunk);
    expect(audio.playout.pendingBytes('agent')).toBe(MAX_QUEUED_BYTES);
    source.push(chunk);
    source.push(chunk);
    expect(audio.playout.pendingBytes('agent')).toBe(MAX_QUEUED_BYTES);
    expect(overflows).toBe(1);
    expect(drops.frames().queue_full).toBe((2 * chunk.length) / FRAME_BYTES);

    // Once it has played some, the source may send again; a later overflow is reported again.
    for (let i = 0; i < 100; i++) audio.tick();
    expect(sent).toHaveLength(100);
    source.push(Buffer.alloc(100 * FRAME_BYTES, 2));
    expect(audio.playout.pendingBytes('agent')).toBe(MAX_QUEUED_BYTES);
    source.push(chunk);
    expect(overflows).toBe(2);
  });

  it('leaves other sources alone when one overflows', () => {
    const audio = new CallAudio('call_y', 'phone-y', () => true, new AudioDrops());
    const greedy = audio.source('greedy');
    const polite = audio.source('polite');
    greedy.push(Buffer.alloc(MAX_QUEUED_BYTES));
    greedy.push(Buffer.alloc(FRAME_BYTES));
    polite.push(Buffer.alloc(FRAME_BYTES));
    expect(audio.playout.pendingBytes('polite')).toBe(FRAME_BYTES);
  });

  it('counts the frames it could not pass on: to a listener whose socket is gone, to a phone that is gone', () => {
    const drops = new AudioDrops();
    let phoneThere = true;
    const audio = new CallAudio('call_z', 'phone-z', () => phoneThere, drops);
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
});
