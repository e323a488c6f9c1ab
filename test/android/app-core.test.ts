import { describe, expect, it } from 'vitest';
import { readStamp } from '../../src/simulator/index.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { callInState, until, getCall, getDevice, getEvents, pairingCode, show, testScope, type Call } from '../helpers/phones.js';
import { openMedia, rampPcm, samples, toneFrames, unstamped } from '../streams/helpers.js';
import { skipAndroid } from './support.js';
import { JvmPhone, type JvmPhoneOptions } from './jvm-phone.js';
import { TcpProxy } from './proxy.js';


/**
 * The Android app's own core (android/core), run on the host JVM with a simulated telephony,
 * against a real gateway over real HTTP and WebSockets.
 */
describe.skipIf(skipAndroid)("the app's core against a real gateway", () => {
  const t = testScope();

  async function jvmPhone(url: string, gatewayForCode: Parameters<typeof pairingCode>[0], options: Partial<JvmPhoneOptions> = {}): Promise<JvmPhone> {
    const phone = t.track(await JvmPhone.start({ url, code: await pairingCode(gatewayForCode), ...options }));
    await phone.connected(10_000);
    return phone;
  }

  async function deviceIdOf(phone: JvmPhone): Promise<string> {
    return (await phone.connected())['deviceId'] as string;
  }

  async function place(g: Parameters<typeof pairingCode>[0], deviceId: string, to = '+15550100'): Promise<Call> {
    const res = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId, to });
    expect(res.status, show(res)).toBe(202);
    return res.body.call;
  }

  async function act(g: Parameters<typeof pairingCode>[0], callId: string, action: string, body?: unknown): Promise<void> {
    const res = await g.api('POST', `/v1/calls/${callId}/${action}`, body);
    expect(res.status, show(res)).toBe(202);
  }

  it('pairs with a code, says hello, reports health and shows up as a connected phone', async () => {
    const g = await t.gateway();
    const phone = await jvmPhone(g.url, g);
    const deviceId = await deviceIdOf(phone);
    expect(deviceId).toMatch(/^phone-[0-9a-f]+$/);
    const out = phone.messages('out');
    expect(out[0]).toMatchObject({ type: 'hello', appVersion: '0.1.0-jvm' });
    expect(out[0]).not.toHaveProperty('call');
    expect(out[1]).toMatchObject({ type: 'health' });
    const device = await until(() => getDevice(g, deviceId), (d) => d.health?.['reportedAt'] !== undefined);
    expect(device).toMatchObject({ id: deviceId, name: 'Phone simulator (JVM)', connected: true });
    expect(device.health).toMatchObject({
      battery: 87, charging: true, network: 'wifi', signal: 4, carrier: 'Simulated Carrier', audio: 'running',
      appVersion: '0.1.0-jvm', android: '14', model: 'App core on the JVM',
    });
  });

  it('places a call: every command is acknowledged and every Telecom change becomes the spec\'s event', async () => {
    const g = await t.gateway();
    const phone = await jvmPhone(g.url, g, { args: ['--ring-ms', '50'] });
    const call = await place(g, await deviceIdOf(phone));
    const dial = await phone.message('in', (m) => m.type === 'command' && m['action'] === 'dial');
    expect(dial).toMatchObject({ callId: call.id, payload: { to: '+15550100' } });
    expect(await phone.message('out', (m) => m.type === 'ack' && m['commandId'] === dial['commandId'])).toMatchObject({ ok: true });
    const active = await callInState(g, call.id, 'active');
    expect(active.answeredAt).toBeTruthy();

    await act(g, call.id, 'hold');
    await callInState(g, call.id, 'held');
    await act(g, call.id, 'unhold');
    await callInState(g, call.id, 'active');
    await act(g, call.id, 'dtmf', { digits: '12#' });
    await until(async () => (await phone.request('tones'))['digits'] as string, (d) => d === '12#');
    await act(g, call.id, 'hangup');
    const ended = await callInState(g, call.id, 'ended');
    expect(ended.endedAt).toBeTruthy();

    // The phone's events; the gateway's own record of the tones it sent (gateway.dtmf_sent) is not one of them.
    const all = await getEvents(g, call.id);
    expect(all.filter((e) => e.event === 'gateway.dtmf_sent').map((e) => e.payload)).toMatchObject([{ digits: '12#', source: 'api' }]);
    const events = all.filter((e) => !e.event.startsWith('gateway.'));
    expect(events.map((e) => e.event)).toEqual([
      'call.connecting', 'call.dialing', 'call.active', 'call.holding', 'call.active', 'call.disconnecting', 'call.disconnected',
    ]);
    expect(events.at(-1)?.payload).toMatchObject({ cause: 'local' });
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    const acks = phone.messages('out', 'ack');
    expect(acks).toHaveLength(phone.messages('in', 'command').length);
    expect(acks.every((a) => a['ok'] === true)).toBe(true);
  });

  it('reports an incoming call without a callId, then puts the callId the gateway named on every later event', async () => {
    const g = await t.gateway();
    const phone = await jvmPhone(g.url, g);
    const callId = await phone.ringIncoming('+15550111');
    const ring = phone.messages('out', 'event')[0]!;
    expect(ring).not.toHaveProperty('callId');
    expect(ring).toMatchObject({ event: 'call.ringing', direction: 'incoming', remoteNumber: '+15550111' });
    expect((await getCall(g, callId)).state).toBe('ringing');
    await phone.status((s) => s['call']?.callId === callId);

    await act(g, callId, 'answer');
    await callInState(g, callId, 'active');
    await phone.request('remoteHangup');
    const ended = await callInState(g, callId, 'ended');
    expect(ended.direction).toBe('incoming');
    // The phone records a message it sent only after writing it to the socket: the gateway may have
    // ended the call before the phone's line for call.disconnected has reached the test.
    await phone.message('out', (m) => m.type === 'event' && m['event'] === 'call.disconnected');
    const later = phone.messages('out', 'event').filter((e) => e['event'] !== 'call.ringing');
    expect(later.map((e) => e['event'])).toEqual(['call.active', 'call.disconnected']);
    expect(later.every((e) => e['callId'] === callId)).toBe(true);
    expect((await getEvents(g, callId)).at(-1)?.payload).toMatchObject({ cause: 'remote' });
  });

  it('ends incoming calls as the protocol names it: rejected, hung up while ringing, missed', async () => {
    const g = await t.gateway();
    const phone = await jvmPhone(g.url, g);
    const ring = (): Promise<string> => phone.ringIncoming('+15550112');
    const rejected = await ring();
    await act(g, rejected, 'reject');
    expect((await callInState(g, rejected, 'rejected')).endedAt).toBeTruthy();
    expect((await getEvents(g, rejected)).map((e) => e.event)).toEqual(['call.ringing', 'call.rejected']);

    const hungUp = await ring();
    await act(g, hungUp, 'hangup');
    await callInState(g, hungUp, 'ended');
    expect((await getEvents(g, hungUp)).at(-1)?.payload).toMatchObject({ cause: 'rejected' });

    const missed = await ring();
    await phone.request('remoteHangup');
    await callInState(g, missed, 'ended');
    expect((await getEvents(g, missed)).at(-1)?.payload).toMatchObject({ cause: 'missed' });
  });

  it('refuses a dial it cannot place with the platform\'s code, and reports busy and failed calls', async () => {
    const g = await t.gateway();
    const phone = await jvmPhone(g.url, g, { args: ['--ring-ms', '50'] });
    const deviceId = await deviceIdOf(phone);
    for (const code of ['NO_SIM', 'NO_PERMISSION', 'NOT_DEFAULT_DIALER']) {
      await phone.request('refuseDials', { code });
      const res = await g.api<{ error: { code: string; message: string } }>('POST', '/v1/calls', { deviceId, to: '+15550100' });
      expect(res.status, show(res)).toBe(409);
      expect(res.body.error.code).toBe(code);
    }
    await phone.request('refuseDials', { code: null });
    const failedCalls = (await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${deviceId}`)).body.calls;
    expect(failedCalls.map((c) => c.state)).toEqual(['failed', 'failed', 'failed']);

    await phone.request('outcome', { outcome: 'busy', ringMs: 20 });
    const busy = await place(g, deviceId);
    await callInState(g, busy.id, 'ended');
    expect((await getEvents(g, busy.id)).at(-1)?.payload).toMatchObject({ cause: 'busy' });

    await phone.request('outcome', { outcome: 'failed', ringMs: 20 });
    const failed = await place(g, deviceId);
    await callInState(g, failed.id, 'failed');
    expect((await getEvents(g, failed.id)).at(-1)).toMatchObject({ event: 'call.failed', payload: { reason: 'simulated failure' } });
  });

  it('sends an event again after a dropped socket when its ack was lost, and the gateway keeps it once', async () => {
    const g = await t.gateway();
    const proxy = t.track(await TcpProxy.start(g.url));
    const phone = await jvmPhone(proxy.url(), g, { args: ['--ring-ms', '20'] });
    const call = await place(g, await deviceIdOf(phone));
    await callInState(g, call.id, 'active');
    // Every ack so far has reached the phone: only the next event's ack is lost.
    await until(async () => (await phone.request('status'))['status'].outboxSize as number, (n) => n === 0);

    proxy.holdDownstream(true);
    await phone.request('remoteHangup');
    const sent = await phone.message('out', (m) => m.type === 'event' && m['event'] === 'call.disconnected');
    await callInState(g, call.id, 'ended');
    // The core publishes its status after it has sent the event: a status read right away may be the one from before.
    await until(async () => (await phone.request('status'))['status'].outboxSize as number, (n) => n === 1, { what: 'call.disconnected kept unacked' });

    proxy.cut();
    proxy.holdDownstream(false);
    await phone.nextStatus((s) => s['link'] === 'CONNECTED' && s['outboxSize'] === 0, 10_000, 'reconnected with an empty outbox');
    const copies = phone.messages('out', 'event').filter((e) => e['eventId'] === sent['eventId']);
    expect(copies).toHaveLength(2);
    const stored = (await getEvents(g, call.id)).filter((e) => e.eventId === sent['eventId']);
    expect(stored).toHaveLength(1);
    expect((await getEvents(g, call.id)).filter((e) => e.event === 'call.disconnected')).toHaveLength(1);
  });

  it('keeps events made while offline through a restart of the app and delivers them in order', async () => {
    const g = await t.gateway();
    const proxy = t.track(await TcpProxy.start(g.url));
    const phone = await jvmPhone(proxy.url(), g);
    const callId = await phone.ringIncoming('+15550113');
    await act(g, callId, 'answer');
    await callInState(g, callId, 'active');
    // The gateway has call.active; its ack must have reached the phone too, or it stays in the outbox.
    await until(async () => (await phone.request('status'))['status'].outboxSize as number, (n) => n === 0, { what: 'call.active acked' });

    proxy.refuse(true);
    proxy.cut();
    await phone.nextStatus((s) => s['link'] === 'WAITING_TO_RETRY');
    await phone.request('remoteHangup');
    await until(async () => (await phone.request('status'))['status'].outboxSize as number, (n) => n === 1, { what: 'call.disconnected kept' });
    // The restarted core reports its status before the request is answered: read it from the answer.
    const restarted = await phone.request('restart');
    expect(restarted['status'].outboxSize, 'the restarted app loaded its outbox').toBe(1);
    proxy.refuse(false);
    await phone.nextStatus((s) => s['link'] === 'CONNECTED' && s['outboxSize'] === 0, 10_000, 'delivered after the restart');
    const ended = await callInState(g, callId, 'ended');
    expect(ended.state).toBe('ended');
    const events = await getEvents(g, callId);
    expect(events.map((e) => e.event)).toEqual(['call.ringing', 'call.active', 'call.disconnected']);
    expect(events.at(-1)?.payload).toMatchObject({ cause: 'remote' });
  });

  it('keeps trying while the gateway is away, then says hello with its call', async () => {
    // The delays themselves (doubling, jittered, capped) are GatewayLinkTest's, on a manual clock.
    const g = await t.gateway();
    const proxy = t.track(await TcpProxy.start(g.url));
    const phone = await jvmPhone(proxy.url(), g, { args: ['--ring-ms', '20'], timings: { backoff: 100, backoffMax: 400 } });
    const call = await place(g, await deviceIdOf(phone));
    await callInState(g, call.id, 'active');

    proxy.refuse(true);
    const from = proxy.attempts.length;
    proxy.cut();
    const waiting = await phone.nextStatus((s) => s['link'] === 'WAITING_TO_RETRY');
    expect(waiting['lastError']).toBeTruthy();
    await until(async () => proxy.attempts.length - from, (n) => n >= 3, { timeoutMs: 10_000, what: 'three attempts' });
    proxy.refuse(false);
    await phone.nextStatus((s) => s['link'] === 'CONNECTED', 10_000);
    const hello = phone.messages('out', 'hello').at(-1)!;
    expect(hello['call']).toMatchObject({ callId: call.id, state: 'active' });
    expect((await getCall(g, call.id)).state).toBe('active');
  });

  it('stops and shows unpaired when the gateway revokes it, connected or not', async () => {
    const g = await t.gateway();
    const phone = await jvmPhone(g.url, g);
    const deviceId = await deviceIdOf(phone);
    const unpairedSoon = phone.nextStatus((s) => s['link'] === 'UNPAIRED');
    expect((await g.api('DELETE', `/v1/devices/${deviceId}`)).status).toBe(204);
    const unpaired = await unpairedSoon;
    expect(unpaired['lastError']).toMatch(/removed from the gateway/);

    const proxy = t.track(await TcpProxy.start(g.url));
    const second = await jvmPhone(proxy.url(), g);
    const secondId = await deviceIdOf(second);
    proxy.refuse(true);
    proxy.cut();
    await second.nextStatus((s) => s['link'] === 'WAITING_TO_RETRY');
    expect((await g.api('DELETE', `/v1/devices/${secondId}`)).status).toBe(204);
    const revokedSoon = second.nextStatus((s) => s['link'] === 'UNPAIRED', 10_000);
    proxy.refuse(false);
    const revoked = await revokedSoon;
    expect(revoked['lastError']).toMatch(/no longer knows this phone/);
    expect(revoked['deviceId']).toBeFalsy();
  });

  it('streams the remote party\'s voice to the gateway in order and plays the gateway\'s audio into the call', async () => {
    const g = await t.gateway();
    // A jitter buffer deep enough that a busy machine's stalls drop nothing: the path itself is under test here.
    const phone = await jvmPhone(g.url, g, { args: ['--ring-ms', '20', '--stamp'], timings: { jitterMax: 100 } });
    const call = await place(g, await deviceIdOf(phone));
    await callInState(g, call.id, 'active');
    await until(async () => (await g.api('GET', `/v1/calls/${call.id}`)).body.media.streaming as boolean, (s) => s === true);

    const media = await openMedia(g, call.id, { authorization: `Bearer ${TEST_API_KEY}` });
    if (!media.ok) throw new Error(`media socket refused: ${media.status}`);
    const frames = await media.peer.frames(30, 5000);
    const stamps = frames.map((f) => readStamp(f));
    expect(stamps.every((s) => s !== null)).toBe(true);
    const seqs = stamps.map((s) => s!.seq);
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[0]! + i);
    // The same samples the Node simulator's tone makes: the app's core passes them on unchanged.
    const tone = toneFrames(seqs[0]! + frames.length);
    frames.forEach((f, i) => expect(unstamped(f).equals(unstamped(tone[seqs[0]! + i]!)), `frame ${seqs[0]! + i}`).toBe(true));

    await phone.request('resetRecorded');
    const speech = rampPcm(16000); // one second
    media.peer.sendBinary(speech);
    await until(async () => (await phone.request('frames'))['frames'].audible as number, (n) => n >= 50, { timeoutMs: 15_000, what: 'one second played' });
    const played = Buffer.from((await phone.request('recorded'))['audio'] as string, 'base64');
    const heard = samples(played).filter((s) => s !== 0);
    expect(heard).toEqual(samples(speech));
    const stats = (await phone.request('frames'))['frames'];
    expect(stats.malformed).toBe(0);
    expect(stats.dropped).toBe(0);
    await media.peer.close();
  });

  it('sends no frames and says so while the audio helper is not running', async () => {
    const g = await t.gateway();
    const phone = await jvmPhone(g.url, g, { args: ['--ring-ms', '20'], timings: { health: 100 } });
    const deviceId = await deviceIdOf(phone);
    await phone.request('audioState', { state: 'stopped', inject: false });
    await until(() => getDevice(g, deviceId), (d) => d.health?.['audio'] === 'stopped');
    const call = await place(g, deviceId);
    await callInState(g, call.id, 'active');
    // Several health reports later (100 ms apart), still no frame went out.
    const healthBefore = phone.messages('out', 'health').length;
    await phone.lines.next(() => phone.messages('out', 'health').length >= healthBefore + 3, { timeoutMs: 5000, what: 'three more health reports' });
    expect((await phone.request('frames'))['frames']).toMatchObject({ sent: 0, streaming: false });
    expect((await g.api('GET', `/v1/calls/${call.id}`)).body.media.streaming).toBe(false);

    await phone.request('audioState', { state: 'running', inject: true });
    await until(async () => (await phone.request('frames'))['frames'].sent as number, (n) => n > 0);
    await until(() => getDevice(g, deviceId), (d) => d.health?.['audio'] === 'running');
  });
});
