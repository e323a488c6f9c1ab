import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEndpoint, type AudioStream } from '@jambonz/sdk/websocket';
import { describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../src/audio/index.js';
import { Recorded } from '../helpers/waits.js';
import { callInState, testScope } from '../helpers/phones.js';
import { liveRawCall, placeCall, rampPcm, streamInfo } from './helpers.js';

const t = testScope();

/** Frames that had reached the phone when a message arrived at `at`: those within a frame's time after it count (they left in the same turn). */
const framesBy = (arrivals: number[], at: number): number => arrivals.filter((a) => a <= at + FRAME_MS).length;

describe('marks and jambonz verbs on raw streams', () => {
  it('echoes {type:"mark", name} once the audio before it has played, at once when none is pending, and as cleared at clear', async () => {
    const { phone, conn } = await liveRawCall(t);
    phone.resetReceived();

    // 1 s of audio (50 frames), then a mark: it comes back as the 50th frame goes, not before.
    conn.sendBinary(rampPcm(16_000));
    conn.send({ type: 'mark', name: 'after-1s' });
    const echo = await conn.messageAt((m) => m.type === 'mark' && m.name === 'after-1s', 5000);
    expect(echo.msg).toEqual({ type: 'mark', name: 'after-1s', data: { name: 'after-1s', event: 'playout' } });
    await phone.waitFor((s) => s.received.frames >= 50, 3000);
    expect(framesBy(phone.received.arrivalTimes, echo.at)).toBeGreaterThanOrEqual(45);

    // Nothing pending: told back before any other frame plays.
    const idleFrames = phone.received.frames;
    conn.send({ type: 'mark', name: 'idle' });
    expect(await conn.message((m) => m.type === 'mark' && m.name === 'idle')).toMatchObject({ data: { event: 'playout' } });
    expect(phone.received.frames).toBe(idleFrames);

    // clear: the pending mark is told back as cleared, and the rest of the 2 s is dropped.
    phone.resetReceived();
    conn.sendBinary(rampPcm(32_000));
    conn.send({ type: 'mark', name: 'pending' });
    await phone.waitFor((s) => s.received.frames >= 5, 3000);
    conn.send({ type: 'clear' });
    expect(await conn.message((m) => m.type === 'mark' && m.name === 'pending')).toEqual({ type: 'mark', name: 'pending', data: { name: 'pending', event: 'cleared' } });
    const afterClear = phone.received.frames;
    // A mark sent after the clear is told back at once: the queue is empty.
    conn.send({ type: 'mark', name: 'after-clear' });
    await conn.message((m) => m.name === 'after-clear');
    expect(phone.received.frames).toBeLessThan(afterClear + 5);
  });

  it('runs an agent written with @jambonz/sdk unchanged: audio, mark (playout and cleared), killAudio and disconnect', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    // The jambonz agent: the SDK's own endpoint and audio service, on a loopback HTTP server.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.track({ close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) });
    const quiet = { info: () => {}, error: () => {}, debug: () => {} };
    const makeService = createEndpoint({ server, logger: quiet });
    const streams = new Recorded<AudioStream>('jambonz audio streams', () => 'a stream');
    makeService.audio({ path: '/audio' }).on('connection', (stream: AudioStream) => streams.add(stream));
    const { port } = server.address() as AddressInfo;

    const { call } = await placeCall(g, phone, { stream: { url: `ws://127.0.0.1:${port}/audio` } });
    const stream = await streams.next(() => true, { timeoutMs: 5000, what: 'jambonz audio stream' });
    // The SDK read the gateway's start message as jambonz's metadata.
    expect(stream.metadata.callId).toBe(call.id);
    await callInState(g, call.id, 'active');
    const marks = new Recorded<{ name: string; event: string }>('marks');
    stream.on('mark', (evt) => marks.add(evt));
    const closed = new Promise<number>((resolve) => stream.on('close', (code) => resolve(code)));

    // sendAudio and sendMark: the mark comes back as the SDK's `mark` event once its audio has played.
    phone.resetReceived();
    stream.sendAudio(rampPcm(8000));
    stream.sendMark('greeting');
    expect(await marks.next((m) => m.name === 'greeting', { timeoutMs: 5000, what: 'greeting mark' })).toEqual({ name: 'greeting', event: 'playout' });
    await phone.waitFor((s) => s.received.frames >= 25, 3000);

    // killAudio: the pending mark is told back as cleared, and the audio stops.
    phone.resetReceived();
    stream.sendAudio(rampPcm(64_000));
    stream.sendMark('long-answer');
    await phone.waitFor((s) => s.received.frames >= 5, 3000);
    stream.killAudio();
    expect(await marks.next((m) => m.name === 'long-answer', { timeoutMs: 5000, what: 'cleared mark' })).toEqual({ name: 'long-answer', event: 'cleared' });
    stream.sendMark('after-kill');
    await marks.next((m) => m.name === 'after-kill', { timeoutMs: 5000, what: 'mark after killAudio' });
    expect(phone.received.frames).toBeLessThan(100);

    // disconnect: the agent hung up, as if it had closed its socket.
    stream.disconnect();
    expect(await closed).toBe(1000);
    await callInState(g, call.id, 'ended');
    expect((await streamInfo(g, call.id)).status).toBe('ended');
  });
});
