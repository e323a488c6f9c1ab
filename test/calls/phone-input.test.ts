import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FRAME_BYTES } from '../../src/audio/index.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { until, getEvents, pairCredentials, phoneEvent, testScope, type Call } from '../helpers/phones.js';
import { openMedia, rawPhoneCall } from '../streams/helpers.js';

const t = testScope();

describe('what a phone may send the gateway', () => {
  it('de-duplicates events per phone: a phone repeating another phone\'s eventId still has its own event applied', async () => {
    const g = await t.gateway();
    const first = await t.raw(g, (await pairCredentials(g, 'First')).deviceToken);
    const secondCreds = await pairCredentials(g, 'Second');
    const second = await t.raw(g, secondCreds.deviceToken);

    const ringing = phoneEvent('call.ringing', `native-${randomUUID()}`, { direction: 'incoming', remoteNumber: '+4930601' });
    const firstCall = String((await first.event(ringing)).callId);
    // Same eventId, another phone, another call.
    const replay = phoneEvent('call.ringing', `native-${randomUUID()}`, { eventId: ringing.eventId, direction: 'incoming', remoteNumber: '+4930602' });
    const secondCall = (await second.event(replay)).callId;
    expect(secondCall).toEqual(expect.any(String));
    expect(secondCall).not.toBe(firstCall);

    const calls = await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${secondCreds.deviceId}`);
    expect(calls.body.calls.map((c) => [c.id, c.remoteNumber, c.state])).toEqual([[secondCall, '+4930602', 'ringing']]);
    expect((await getEvents(g, String(secondCall))).map((e) => e.eventId)).toEqual([ringing.eventId]);
    expect((await getEvents(g, firstCall)).map((e) => e.eventId)).toEqual([ringing.eventId]);
    // Within one phone an eventId still counts once.
    expect((await second.event(replay)).callId).toBe(secondCall);
    expect((await getEvents(g, String(secondCall))).map((e) => e.eventId)).toEqual([ringing.eventId]);
  });

  it('passes on only 640-byte audio frames; the others are dropped, counted, and reported once with BAD_MESSAGE', async () => {
    const g = await t.gateway({ captureLogs: true });
    const { phone, callId, deviceId } = await rawPhoneCall(t, g);
    const media = await openMedia(g, callId, { 'x-api-key': TEST_API_KEY });
    if (!media.ok) throw new Error(`media socket refused: ${media.status}`);
    t.defer(() => media.peer.close());
    await media.peer.message((m) => m.type === 'start');

    for (const size of [FRAME_BYTES + 1, 1024 * 1024, 320, 1]) phone.ws.send(Buffer.alloc(size, 9), { binary: true });
    phone.ws.send(Buffer.alloc(FRAME_BYTES, 5), { binary: true });
    const [frame] = await media.peer.frames(1);
    expect(frame).toEqual(Buffer.alloc(FRAME_BYTES, 5));
    // Anything the gateway said about those frames came before the answer to a later message.
    const stray = phoneEvent('call.new', `native-${randomUUID()}`);
    await phone.event(stray);
    const errors = phone.messages.filter((m) => m.type === 'error');
    expect(errors).toEqual([{ type: 'error', code: 'BAD_MESSAGE', message: expect.stringMatching(/exactly 640 bytes.*got 641/) }]);
    expect(media.peer.binary.items).toHaveLength(1);

    await phone.close();
    await until(async () => g.logs.find((l) => l.includes('phone disconnected') && l.includes(deviceId)), (line) => line !== undefined, { what: 'the disconnect logged' });
    expect(g.logs.find((l) => l.includes('phone disconnected') && l.includes(deviceId))).toContain('"badFrames":4');
    expect(g.logs.filter((l) => l.includes('audio frame of the wrong size'))).toHaveLength(1);
  });

  it('applies every event of a flood, in order, reading from the phone only as fast as they are applied', async () => {
    const g = await t.gateway({ captureLogs: true });
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const flood = Array.from({ length: 2000 }, () => phoneEvent('call.new', `native-${randomUUID()}`));
    for (const event of flood) phone.send(event);
    await phone.ack(flood.at(-1)!.eventId, 1, 30_000);
    const acks = phone.messages.filter((m) => m.type === 'event.ack').map((m) => m.eventId);
    expect(acks).toEqual(flood.map((e) => e.eventId));
    expect(g.logs.filter((l) => l.includes('reading from it paused'))).toHaveLength(1);
    expect(phone.open).toBe(true);
  });
});
