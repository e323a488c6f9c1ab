import { describe, expect, it } from 'vitest';
import { MAX_MEDIA_SOCKETS_PER_CALL } from '../../src/media/media-socket.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { callInState, testScope, type ErrorBody } from '../helpers/phones.js';
import { openMedia, placeCall, TONE, type PeerSocket } from './helpers.js';

const t = testScope();

describe('media sockets per call', () => {
  it(`take ${MAX_MEDIA_SOCKETS_PER_CALL} sockets on one call without a listener-leak warning, refuse the next with 409, and send every one stop`, async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    t.defer(() => void process.off('warning', onWarning));

    const g = await t.gateway();
    const phone = await t.phone(g, { audio: TONE, dial: { outcome: 'answer', ringMs: 20 } });
    // Two calls' worth of sockets, one before the answer: the listeners must not grow with either.
    const { call } = await placeCall(g, phone);
    const sockets: PeerSocket[] = [];
    const open = async () => {
      const outcome = await openMedia(g, call.id, { 'x-api-key': TEST_API_KEY });
      if (!outcome.ok) throw new Error(`media socket refused: ${outcome.status} ${JSON.stringify(outcome.body)}`);
      t.defer(() => outcome.peer.close());
      sockets.push(outcome.peer);
    };
    await open();
    await callInState(g, call.id, 'active');
    while (sockets.length < MAX_MEDIA_SOCKETS_PER_CALL) await open();

    const refused = await openMedia(g, call.id, { 'x-api-key': TEST_API_KEY });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.status).toBe(409);
      expect((refused.body as ErrorBody).error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`${MAX_MEDIA_SOCKETS_PER_CALL} media sockets`) });
    }
    // A place freed is a place taken again.
    await sockets.pop()!.close();
    await open();

    for (const s of sockets) await s.frames(1);
    phone.remoteHangup();
    for (const s of sockets) {
      expect(await s.message((m) => m.type === 'stop')).toEqual({ type: 'stop', callId: call.id });
      expect((await s.closed).code).toBe(1000);
    }
    // A warning is emitted on the next tick: give it one before reading.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map(String)).toEqual([]);
  });
});
