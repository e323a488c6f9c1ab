import { describe, expect, it } from 'vitest';
import { readStamp } from '../../src/simulator/index.js';
import { callInState, until, getDevice, pairingCode, show, testScope, type Call } from '../helpers/phones.js';
import { agent, rampPcm, samples, streamInfo, toneFrames, unstamped, type PeerSocket } from '../streams/helpers.js';
import { JvmPhone, type JvmPhoneOptions } from './jvm-phone.js';
import { skipAndroid } from './support.js';

/**
 * The bridge's timings for tests: a dead helper is noticed within a second, a new one found within
 * 200 ms; and a jitter buffer and writers to and from the helper deep enough that a busy machine's
 * stalls drop no frame of the path under test (the phone's bounds have tests of their own).
 */
const FAST = { helperRetry: 200, helperPing: 300, helperTimeout: 500, jitterMax: 100, helperAudioWaiting: 50 };

/**
 * The audio helper's bridge end to end on the host: the app's core on the JVM talks to a fake
 * helper over TCP on the loopback (the real framing and the helper's own service; a tone in place
 * of the remote party, a recorder in place of the uplink), against a real gateway and a raw agent.
 */
describe.skipIf(skipAndroid)("the app's core with a fake audio helper", () => {
  const t = testScope();

  async function helperPhone(g: Parameters<typeof pairingCode>[0], mode = 'fake', options: Partial<JvmPhoneOptions> = {}): Promise<{ phone: JvmPhone; deviceId: string }> {
    const phone = t.track(await JvmPhone.start({ url: g.url, code: await pairingCode(g), args: ['--helper', mode, '--stamp', '--ring-ms', '20'], timings: FAST, ...options }));
    const connected = await phone.connected(10_000);
    return { phone, deviceId: connected['deviceId'] as string };
  }

  /** A call placed from the phone and streamed to a raw agent, answered and live. */
  async function streamedCall(g: Parameters<typeof pairingCode>[0], deviceId: string): Promise<{ call: Call; conn: PeerSocket }> {
    const a = await agent(t);
    const res = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId, to: '+15550100', stream: { url: a.url } });
    expect(res.status, show(res)).toBe(202);
    const conn = await a.connection();
    await conn.message((m) => m.type === 'start');
    await callInState(g, res.body.call.id, 'active');
    return { call: res.body.call, conn };
  }

  const streaming = async (g: Parameters<typeof pairingCode>[0], callId: string): Promise<boolean> =>
    (await g.api<{ media: { streaming: boolean } }>('GET', `/v1/calls/${callId}`)).body.media.streaming;

  it('reports the helper running with its capabilities, and its tone reaches a raw agent unchanged', async () => {
    const g = await t.gateway();
    const { phone, deviceId } = await helperPhone(g);
    const device = await until(() => getDevice(g, deviceId), (d) => d.health?.audio === 'running' && d.health.audioCapabilities !== undefined);
    expect(device.health?.audioCapabilities).toEqual({ capture: true, inject: true, method: 'simulated', sampleRate: 16000 });

    const { call, conn } = await streamedCall(g, deviceId);
    const frames = await conn.frames(50, 5000);
    const stamps = frames.map((f) => readStamp(f));
    expect(stamps.every((s) => s !== null)).toBe(true);
    const first = stamps[0]!.seq;
    // Consecutive from the first frame the agent got (earlier ones went by before it was live), none lost.
    stamps.forEach((s, i) => expect(s!.seq, `frame ${i}`).toBe(first + i));
    const tone = toneFrames(first + frames.length);
    frames.forEach((f, i) => expect(unstamped(f).equals(unstamped(tone[first + i]!)), `frame ${first + i}`).toBe(true));
    expect(await streaming(g, call.id)).toBe(true);
    expect((await phone.request('helper', { action: 'state' }))['captures']).toBe(1);
  });

  it('plays the agent\'s audio out of the helper\'s sink, paced at one frame per 20 ms', async () => {
    const g = await t.gateway();
    const { phone, deviceId } = await helperPhone(g);
    const { conn } = await streamedCall(g, deviceId);
    await phone.request('resetRecorded');

    const speech = rampPcm(16000); // one second, sent at once
    conn.sendBinary(speech);
    // The whole counters, so that a failure shows where frames went (received, played, injectDropped).
    const counters = await until(async () => (await phone.request('frames'))['frames'] as { audible: number; injectDropped: number }, (f) => f.audible >= 50, { timeoutMs: 15_000, what: 'one second in the sink' });
    expect(counters.injectDropped).toBe(0);
    const played = Buffer.from((await phone.request('recorded'))['audio'] as string, 'base64');
    expect(samples(played).filter((s) => s !== 0)).toEqual(samples(speech));

    const arrivals = ((await phone.request('helper', { action: 'state' }))['arrivals'] as Array<[number, boolean]>).filter(([, audible]) => audible).map(([at]) => at);
    expect(arrivals).toHaveLength(50);
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!);
    const sorted = [...gaps].sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const span = arrivals.at(-1)! - arrivals[0]!;
    // Paced, not a burst: 49 gaps take at least 49 x 20 ms, less the 100 ms the pipe may catch up
    // after a stall. (Only "not faster than real time" is asserted: a busy machine may be slower.)
    expect(span, `gaps ${gaps.map((x) => x.toFixed(1)).join(' ')}`).toBeGreaterThanOrEqual(49 * 20 - 100);
    expect(median, `gaps ${gaps.map((x) => x.toFixed(1)).join(' ')}`).toBeGreaterThan(15);
  });

  it('a listen-only helper: the health says so and the gateway\'s audio is discarded on the phone', async () => {
    const g = await t.gateway();
    const { phone, deviceId } = await helperPhone(g, 'fake-listen-only');
    const device = await until(() => getDevice(g, deviceId), (d) => d.health?.audioCapabilities !== undefined);
    expect(device.health?.audioCapabilities).toEqual({ capture: true, inject: false, method: 'simulated', sampleRate: 16000 });
    const { conn } = await streamedCall(g, deviceId);
    await conn.frames(10, 5000);
    expect((await phone.request('status'))['status']).toMatchObject({ audio: 'running', canInject: false, streaming: true });

    conn.sendBinary(rampPcm(16000));
    await until(async () => (await phone.request('frames'))['frames'].received as number, (n) => n >= 20, { what: 'the gateway\'s frames reached the phone' });
    const helper = await phone.request('helper', { action: 'state' });
    expect(helper['arrivals']).toEqual([]);
    expect(helper['injecting']).toBe(false);
    expect((await phone.request('frames'))['frames']).toMatchObject({ played: 0, audible: 0 });
  });

  it('a helper that dies mid-call turns health.audio to stopped at once and the call goes on; started again, the audio comes back', async () => {
    const g = await t.gateway();
    const { phone, deviceId } = await helperPhone(g);
    const { call, conn } = await streamedCall(g, deviceId);
    await conn.frames(10, 5000);
    await until(() => streaming(g, call.id), (s) => s, { what: 'streaming' });

    const healthBefore = phone.messages('out', 'health').length;
    // Sent on the change, not with the next report of every 60 s. Awaited from before the request:
    // the report may leave the phone before the request's answer does.
    const stopped = phone.nextMessage('out', (m) => m.type === 'health' && m['health'].audio === 'stopped', 15_000, 'a health report saying stopped');
    await phone.request('helper', { action: 'die' });
    const report = await stopped;
    expect(phone.messages('out', 'health').length).toBe(healthBefore + 1);
    expect(report['health'].audioCapabilities).toEqual({ capture: true, inject: true, method: 'simulated', sampleRate: 16000 });
    await until(() => getDevice(g, deviceId), (d) => d.health?.audio === 'stopped', { what: 'the device shows stopped' });
    await until(() => streaming(g, call.id), (s) => !s, { what: 'streaming false' });
    expect((await g.api<{ call: Call }>('GET', `/v1/calls/${call.id}`)).body.call.state).toBe('active');
    expect((await streamInfo(g, call.id)).status).toBe('live');
    expect(conn.open).toBe(true);

    const received = conn.binary.items.length;
    await phone.request('helper', { action: 'start' });
    await until(() => getDevice(g, deviceId), (d) => d.health?.audio === 'running', { what: 'running again' });
    await conn.binary.nextNew(() => conn.binary.items.length >= received + 10, { timeoutMs: 5000, what: 'frames again' });
    await until(() => streaming(g, call.id), (s) => s, { what: 'streaming again' });
    expect((await phone.request('helper', { action: 'state' }))['captures']).toBe(2);
  });
});
