import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { callInState, show } from '../helpers/phones.js';
import { agentInfo, rig, testScope } from '../assistant/support.js';
import { agent, openMedia, streamInfo, type PeerSocket } from './helpers.js';

const t = testScope();

describe('everything attached to one call', () => {
  it('an agent stream, the assistant and eight media sockets share a call, add no listener per socket, and are all let go at its end', async () => {
    const r = await rig(t);
    const fake = await agent(t);
    const calls = r.gateway.services.calls;
    const listeners = (): number[] => (['change', 'released', 'resumed'] as const).map((event) => calls.listenerCount(event));
    const before = listeners();

    const callId = await r.phone.ringIncoming('+4915100000009');
    const sockets: PeerSocket[] = [];
    const open = async (): Promise<void> => {
      const outcome = await openMedia(r.gateway, callId, { 'x-api-key': TEST_API_KEY });
      if (!outcome.ok) throw new Error(`media socket refused: ${outcome.status} ${JSON.stringify(outcome.body)}`);
      t.defer(() => outcome.peer.close());
      sockets.push(outcome.peer);
    };
    // Half before the answer (they attach on the call's `started`), half after (at once).
    for (let i = 0; i < 4; i++) await open();
    const attached = await r.gateway.api('POST', `/v1/calls/${callId}/stream`, { url: fake.url });
    expect(attached.status, show(attached)).toBe(202);
    await callInState(r.gateway, callId, 'active');
    for (let i = 0; i < 4; i++) await open();
    const taken = await r.gateway.api('POST', `/v1/calls/${callId}/agent`);
    expect(taken.status, show(taken)).toBe(202);
    await r.fake.waitForEvent('response.create', undefined, 5000);

    const stream = await fake.connection(0);
    await stream.frames(3);
    for (const s of sockets) await s.frames(1);
    expect(await streamInfo(r.gateway, callId)).toMatchObject({ status: 'live' });
    expect(await agentInfo(r.gateway, callId)).toMatchObject({ status: 'live' });
    expect(listeners()).toEqual(before);

    const model = r.fake.connections.at(-1)!.socket;
    const modelClosed = new Promise<void>((resolve) => (model.readyState === WebSocket.CLOSED ? resolve() : model.once('close', () => resolve())));
    r.phone.remoteHangup();
    await callInState(r.gateway, callId, 'ended');
    expect(await stream.message((m) => m.type === 'stop')).toMatchObject({ callId });
    expect((await stream.closed).code).toBe(1000);
    for (const s of sockets) {
      expect(await s.message((m) => m.type === 'stop')).toEqual({ type: 'stop', callId });
      expect((await s.closed).code).toBe(1000);
    }
    await modelClosed;
    // The ended call's statuses are kept for GET; no stream or assistant failed.
    expect(await streamInfo(r.gateway, callId)).toMatchObject({ status: 'ended' });
    expect(await agentInfo(r.gateway, callId)).toMatchObject({ status: 'ended' });
    expect(listeners()).toEqual(before);
  });
});
