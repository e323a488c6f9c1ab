import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Call, CallService } from '../calls/index.js';
import { createLogger } from '../log.js';
import { CallAttachments, type CallAttachment, type StopReason } from './attachments.js';
import type { MediaRouter } from './router.js';

/** An attachment that records how it was let go of. */
class Recording implements CallAttachment<string> {
  readonly stops: StopReason[] = [];
  constructor(public status = 'waiting') {}
  attach(): void {
    this.status = 'live';
  }
  stop(reason: StopReason): void {
    this.stops.push(reason);
    if (this.status !== 'error') this.status = 'ended';
  }
}

const call = (id: string, state: Call['state']): Call => ({ id, state }) as Call;

/**
 * The registry's inputs are two emitters: the call service's events and the router's. Their
 * payloads are what CallService and MediaRouter emit (the wiring is covered through the real
 * gateway in test/streams/attachments.test.ts); here the registry's own rules, which a gateway test
 * would need a thousand calls or a second node to reach.
 */
function registry(): { calls: EventEmitter; media: EventEmitter; attachments: CallAttachments } {
  const calls = new EventEmitter();
  const media = Object.assign(new EventEmitter(), { get: () => undefined });
  const attachments = new CallAttachments({ calls: calls as unknown as CallService, media: media as unknown as MediaRouter, log: createLogger('silent') });
  attachments.subscribe();
  return { calls, media, attachments };
}

describe('CallAttachments', () => {
  it("keeps each kind's ended statuses on their own: a thousand calls of another kind do not push a failed stream's out", () => {
    const { calls, attachments } = registry();
    const streams = attachments.kind<Recording>('stream');
    const assistants = attachments.kind<Recording>('assistant');
    streams.set('c0', new Recording('error'));
    calls.emit('change', { call: call('c0', 'ended'), previousState: 'active' });
    for (let i = 1; i <= 1000; i++) {
      assistants.set(`c${i}`, new Recording());
      calls.emit('change', { call: call(`c${i}`, 'ended'), previousState: 'active' });
    }
    expect(streams.get('c0')?.status).toBe('error');
    // The assistant's own thousand are kept, and the oldest goes at the next.
    expect(assistants.get('c1')?.status).toBe('ended');
    assistants.set('c1001', new Recording());
    calls.emit('change', { call: call('c1001', 'ended'), previousState: 'active' });
    expect(assistants.get('c1')).toBeUndefined();
  });

  it('tells the attachments of a call let go to another node that it was released, although its audio ended first', () => {
    const { calls, media, attachments } = registry();
    const sockets = attachments.kind<Recording>('media socket');
    const socket = new Recording();
    sockets.add('c1', socket);
    // The router hears `released` before the registry and ends the call's audio in it.
    media.emit('ended', {}, call('c1', 'ended'));
    calls.emit('released', call('c1', 'active'));
    expect(socket.stops).toEqual(['released']);
    expect(sockets.has('c1')).toBe(false);
  });

  it('stops a call’s attachments once, at its final change', () => {
    const { calls, attachments } = registry();
    const streams = attachments.kind<Recording>('stream');
    const stream = new Recording();
    streams.set('c2', stream);
    calls.emit('change', { call: call('c2', 'ended'), previousState: 'active' });
    calls.emit('change', { call: call('c2', 'ended'), previousState: 'ended' });
    expect(stream.stops).toEqual(['ended']);
    expect(streams.get('c2')?.status).toBe('ended');
  });
});
