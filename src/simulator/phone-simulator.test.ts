import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FRAME_BYTES } from '../audio/constants.js';
import { GatewayRequestError, PhoneSimulator, readStamp, type PhoneSimulatorOptions } from './index.js';
import { FakeGateway, zeroCrossings, type Json } from './test-support/fake-gateway.js';
import { encodeWav } from './wav.js';

let gw: FakeGateway;
const sims: PhoneSimulator[] = [];

beforeEach(async () => {
  gw = await FakeGateway.start();
});

afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.stop()));
  await gw.close();
});

function phone(opts: Partial<PhoneSimulatorOptions> = {}): PhoneSimulator {
  const sim = new PhoneSimulator({
    gatewayUrl: gw.httpUrl,
    credentials: gw.issueDevice(),
    audio: { kind: 'none' },
    reconnectDelayMs: { initial: 20, max: 100 },
    ...opts,
  });
  sims.push(sim);
  return sim;
}

const eventsAt = (from = 0): Json[] => gw.messages.slice(from).map((m) => m.msg).filter((m) => m['type'] === 'event');
const waitEvent = (name: string, after = 0): Promise<Json> =>
  gw.waitForMessage((m) => m['type'] === 'event' && m['event'] === name, { after });

describe('pairing', () => {
  it('posts the pairing request and keeps the credentials', async () => {
    const sim = phone({ credentials: undefined, name: 'Desk phone', model: 'Pixel 8', android: '15', appVersion: '1.2.3' });
    const creds = await sim.pair('CODE-1234');
    expect(creds.deviceId).toMatch(/^phone-[0-9a-f]+$/);
    expect(sim.deviceId).toBe(creds.deviceId);
    expect(gw.pairRequests).toEqual([
      {
        method: 'POST',
        path: '/v1/phone/pair',
        contentType: 'application/json',
        authorization: undefined,
        body: { code: 'CODE-1234', name: 'Desk phone', model: 'Pixel 8', android: '15', appVersion: '1.2.3' },
      },
    ]);
    await sim.connect();
    expect(sim.connected).toBe(true);
  });

  it('throws the status and error body of a refused code', async () => {
    const sim = phone({ credentials: undefined });
    const err = await sim.pair('WRONG').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayRequestError);
    expect(err).toMatchObject({ status: 401, code: 'UNAUTHORIZED', body: { error: { code: 'UNAUTHORIZED' } } });
    expect(sim.deviceId).toBeNull();
  });
});

describe('connection', () => {
  it('sends hello, waits for welcome, then reports health, and repeats health on the interval', async () => {
    const sim = phone({ appVersion: '9.9.9', health: { battery: 42 }, healthIntervalMs: 40, logger: pino({ level: 'silent' }) });
    const connected = sim.waitFor('connected');
    await sim.connect();
    expect((await connected).deviceId).toBe(sim.deviceId);
    expect(sim.connected).toBe(true);
    await gw.until(() => (gw.messagesOf('health').length >= 2 ? true : undefined));
    const [hello, health] = gw.messages.map((m) => m.msg);
    expect(hello).toEqual({ type: 'hello', appVersion: '9.9.9' });
    expect(health).toMatchObject({
      type: 'health',
      health: { battery: 42, charging: true, network: 'wifi', signal: 4, audio: 'running', appVersion: '9.9.9' },
    });
    const h = (health as { health: Record<string, unknown> }).health;
    expect(Object.keys(h).sort()).toEqual(
      ['android', 'appVersion', 'audio', 'battery', 'carrier', 'charging', 'model', 'network', 'reportedAt', 'signal'].sort(),
    );
    expect(new Date(String(h['reportedAt'])).toISOString()).toBe(h['reportedAt']);
    expect(gw.violations).toEqual([]);
  });

  it('reports health at once when it changes', async () => {
    const sim = phone();
    await sim.connect();
    sim.setHealth({ network: 'cellular', signal: 2 });
    const report = await gw.waitForMessage((m) => m['type'] === 'health' && (m['health'] as Json)['network'] === 'cellular');
    expect(report['health']).toMatchObject({ signal: 2 });
  });

  it('rejects with the HTTP status when the upgrade is refused', async () => {
    const sim = phone({ credentials: { deviceId: 'phone-00', deviceToken: 'wrong' } });
    const err = await sim.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayRequestError);
    expect(err).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(sim.connected).toBe(false);
    expect(gw.upgradeRefusals).toBe(1);
  });

  it('reconnects after an unexpected close', async () => {
    const sim = phone();
    await sim.connect();
    const back = sim.waitFor('connected');
    const gone = sim.waitFor('disconnected');
    gw.current.ws.close(1011, 'restart');
    expect(await gone).toEqual({ code: 1011, reason: 'restart', willReconnect: true });
    await back;
    expect(gw.sockets).toHaveLength(2);
    expect(gw.messagesOf('hello')).toHaveLength(2);
  });

  it('notices a gateway that stopped answering (no pong within pongTimeoutMs) and reconnects', async () => {
    // A deadline well above the ping interval: a stall of this process (the pong waits unread while
    // the deadline's timer runs first) must not pass for a gateway that stopped answering.
    const sim = phone({ pingIntervalMs: 40, pongTimeoutMs: 400 });
    await sim.connect();
    // It pings, and a gateway that answers keeps it connected.
    await new Promise<void>((resolve) => {
      let pings = 0;
      gw.current.ws.on('ping', () => ++pings === 3 && resolve());
    });
    expect(sim.connected).toBe(true);

    // The gateway's end of the connection goes silent: nothing it receives is read, so no pong.
    const gone = sim.waitFor('disconnected');
    const back = sim.waitFor('connected');
    gw.current.ws.pause();
    expect(await gone).toMatchObject({ code: 1006, willReconnect: true });
    await back;
    expect(gw.sockets).toHaveLength(2);
    expect(gw.messagesOf('hello')).toHaveLength(2);
  });

  it('stops on close code 4001 and emits revoked', async () => {
    const sim = phone();
    await sim.connect();
    const revoked = sim.waitFor('revoked');
    gw.current.ws.close(4001, 'revoked');
    expect(await revoked).toEqual({ closeCode: 4001, reason: 'revoked' });
    expect(sim.connected).toBe(false);
    // Ten times the reconnect delay: no new socket.
    await new Promise((r) => setTimeout(r, 200));
    expect(gw.sockets).toHaveLength(1);
  });

  it('stops on close code 4000 and emits replaced', async () => {
    const sim = phone();
    await sim.connect();
    const replaced = sim.waitFor('replaced');
    gw.current.ws.close(4000, 'replaced');
    expect(await replaced).toEqual({ closeCode: 4000, reason: 'replaced' });
    await new Promise((r) => setTimeout(r, 200));
    expect(gw.sockets).toHaveLength(1);
  });

  it('emits revoked when a reconnect is refused with 401', async () => {
    const creds = gw.issueDevice();
    const sim = phone({ credentials: creds });
    await sim.connect();
    gw.revokeToken(creds.deviceToken);
    const revoked = sim.waitFor('revoked');
    sim.dropSocket();
    expect(await revoked).toMatchObject({ status: 401 });
  });

  it('emits gateway error messages as error', async () => {
    const sim = phone();
    await sim.connect();
    const error = sim.waitFor('error');
    gw.current.send({ type: 'error', code: 'BAD_MESSAGE', message: 'unknown type' });
    expect(await error).toEqual({ type: 'error', code: 'BAD_MESSAGE', message: 'unknown type' });
    expect(sim.gatewayErrors).toHaveLength(1);
  });

  it('records gateway messages that break the protocol', async () => {
    const sim = phone();
    await sim.connect();
    const violation = sim.waitFor('protocol-violation');
    gw.current.ws.send('{"type":"surprise"}');
    expect(await violation).toMatch(/invalid message/);
  });
});

describe('commands', () => {
  it('dial: acks, reports dialing with the callId, then active', async () => {
    const sim = phone({ dial: { outcome: 'answer', ringMs: 10 } });
    await sim.connect();
    const ack = await gw.command('dial', 'call-1', { to: '+15551234' });
    expect(ack).toEqual({ type: 'ack', commandId: ack['commandId'], ok: true });
    const dialing = await waitEvent('call.dialing');
    expect(dialing).toMatchObject({
      callId: 'call-1',
      direction: 'outgoing',
      remoteNumber: '+15551234',
      payload: {},
    });
    expect(dialing['eventId']).toMatch(/^[0-9a-f-]{36}$/);
    expect(dialing['nativeCallId']).toMatch(/^sim-/);
    expect(new Date(String(dialing['occurredAt'])).toISOString()).toBe(dialing['occurredAt']);
    const active = await waitEvent('call.active');
    expect(active).toMatchObject({ callId: 'call-1', nativeCallId: dialing['nativeCallId'] });
    expect(active['eventId']).not.toBe(dialing['eventId']);
    expect(sim.currentCall).toMatchObject({ callId: 'call-1', direction: 'outgoing', state: 'active' });
    // The ack precedes the first event of the call.
    const order = gw.messages.map((m) => m.msg['type']);
    expect(order.indexOf('ack')).toBeLessThan(order.indexOf('event'));
    await sim.waitFor((s) => s.outboxSize === 0);
  });

  it('dial while a call is in progress is refused with DEVICE_BUSY', async () => {
    const sim = phone({ dial: { outcome: 'manual' } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    const ack = await gw.command('dial', 'call-2', { to: '+1666' });
    expect(ack).toMatchObject({ ok: false, error: { code: 'DEVICE_BUSY' } });
    expect(sim.currentCall?.callId).toBe('call-1');
  });

  it.each([
    ['busy', 'call.disconnected', { cause: 'busy' }],
    ['no-answer', 'call.disconnected', { cause: 'missed' }],
    ['failed', 'call.failed', { reason: 'no signal' }],
  ] as const)('dial outcome %s ends with %s', async (outcome, event, payload) => {
    const sim = phone({ dial: { outcome, ringMs: 5, failReason: 'no signal' } });
    await sim.connect();
    const ended = sim.waitFor('call', 1000, (c) => c.event === event);
    await gw.command('dial', 'call-7', { to: '+1555' });
    expect(await waitEvent(event)).toMatchObject({ callId: 'call-7', payload });
    expect((await ended).state).toBe(event === 'call.failed' ? 'failed' : 'ended');
    expect(sim.currentCall).toBeNull();
    expect(eventsAt().map((e) => e['event'])).toEqual(['call.dialing', event]);
  });

  it('manual outcome waits for remoteAnswer / remoteBusy', async () => {
    const sim = phone({ dial: { outcome: 'manual' } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await waitEvent('call.dialing');
    expect(sim.currentCall?.state).toBe('dialing');
    sim.remoteAnswer();
    await waitEvent('call.active');
    expect(() => sim.remoteBusy()).toThrow(/no fitting call/);
    await gw.command('hangup', 'call-1');
    expect(await waitEvent('call.disconnected')).toMatchObject({ payload: { cause: 'local' } });

    await gw.command('dial', 'call-2', { to: '+1555' });
    sim.remoteBusy();
    expect(await gw.waitForMessage((m) => m['event'] === 'call.disconnected' && m['callId'] === 'call-2')).toMatchObject({
      payload: { cause: 'busy' },
    });
  });

  it('hold, unhold, dtmf and hangup on an active call', async () => {
    const sim = phone({ dial: { outcome: 'answer', ringMs: 0 } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await waitEvent('call.active');
    expect(await gw.command('unhold', 'call-1')).toMatchObject({ ok: false, error: { code: 'INVALID_STATE' } });
    expect(await gw.command('hold', 'call-1')).toMatchObject({ ok: true });
    expect(await waitEvent('call.holding')).toMatchObject({ callId: 'call-1' });
    expect(sim.currentCall?.state).toBe('held');
    const dtmf = sim.waitFor('dtmf');
    expect(await gw.command('dtmf', 'call-1', { digits: '12#' })).toMatchObject({ ok: true });
    expect(await dtmf).toEqual({ digits: '12#', callId: 'call-1' });
    expect(await gw.command('unhold', 'call-1')).toMatchObject({ ok: true });
    await gw.until(() => (eventsAt().length === 4 ? true : undefined));
    await gw.command('dtmf', 'call-1', { digits: '*9' });
    expect(sim.dtmfDigits).toBe('12#*9');
    expect(await gw.command('dtmf', 'call-1', { digits: 'abc' })).toMatchObject({ ok: false, error: { code: 'BAD_COMMAND' } });
    expect(await gw.command('hold', 'other-call')).toMatchObject({ ok: false, error: { code: 'NO_CALL' } });
    await gw.command('hangup', 'call-1');
    await waitEvent('call.disconnected');
    expect(eventsAt().map((e) => e['event'])).toEqual([
      'call.dialing',
      'call.active',
      'call.holding',
      'call.active',
      'call.disconnected',
    ]);
    expect(eventsAt().every((e) => typeof e['event'] === 'string' && e['callId'] === 'call-1')).toBe(true);
    expect(sim.commands.map((c) => c.action)).toEqual(['dial', 'unhold', 'hold', 'dtmf', 'unhold', 'dtmf', 'dtmf', 'hold', 'hangup']);
  });

  it('a command for a call the phone does not have is refused with NO_CALL', async () => {
    const sim = phone();
    await sim.connect();
    expect(await gw.command('answer', 'call-9')).toMatchObject({ ok: false, error: { code: 'NO_CALL' } });
    expect(await gw.command('frobnicate', 'call-9')).toMatchObject({ ok: false, error: { code: 'BAD_COMMAND' } });
  });

  it("ackBehaviour 'silent' never acks nor acts; a refusal acks every command with it", async () => {
    const sim = phone({ ackBehaviour: 'silent' });
    await sim.connect();
    const commanded = sim.waitFor('command');
    const silentId = gw.sendCommandNoWait('dial', 'call-1', { to: '+1555' });
    await commanded;
    sim.ackBehaviour = { ok: false, code: 'NO_SIM', message: 'no SIM card' };
    expect(await gw.command('dial', 'call-2', { to: '+1555' })).toMatchObject({
      ok: false,
      error: { code: 'NO_SIM', message: 'no SIM card' },
    });
    // Messages arrive in order: the refusal's ack came, the silent command's never did.
    expect(gw.messagesOf('ack').map((a) => a['commandId'])).not.toContain(silentId);
    expect(eventsAt()).toEqual([]);
    expect(sim.currentCall).toBeNull();
  });
});

describe('incoming calls', () => {
  it('ringIncoming resolves with the callId of the event.ack; later events carry it', async () => {
    const sim = phone();
    await sim.connect();
    const callId = await sim.ringIncoming('+4930123');
    expect(callId).toBe('call-in-1');
    const [ringing] = eventsAt();
    expect(ringing).toMatchObject({ event: 'call.ringing', direction: 'incoming', remoteNumber: '+4930123', payload: {} });
    expect(ringing).not.toHaveProperty('callId');
    expect(sim.currentCall).toMatchObject({ callId, state: 'ringing' });
    await gw.command('answer', callId);
    expect(await waitEvent('call.active')).toMatchObject({ callId, nativeCallId: ringing?.['nativeCallId'] });
    sim.remoteHangup();
    expect(await waitEvent('call.disconnected')).toMatchObject({ callId, payload: { cause: 'remote' } });
    expect(sim.currentCall).toBeNull();
  });

  it('reject gives call.rejected; a caller who gives up gives a missed call', async () => {
    const sim = phone();
    await sim.connect();
    const first = await sim.ringIncoming('+1');
    await gw.command('reject', first);
    expect(await waitEvent('call.rejected')).toMatchObject({ callId: first });
    await expect(sim.ringIncoming('+2')).resolves.toBe('call-in-2');
    await expect(sim.ringIncoming('+3')).rejects.toThrow(/DEVICE_BUSY/);
    sim.remoteHangup();
    expect(await waitEvent('call.disconnected')).toMatchObject({ callId: 'call-in-2', payload: { cause: 'missed' } });
  });
});

describe('event outbox', () => {
  it('resends unacknowledged events after a dropped socket, same eventIds, in order', async () => {
    const sim = phone({ dial: { outcome: 'manual' } });
    await sim.connect();
    gw.autoAckEvents = false;
    await gw.command('dial', 'call-1', { to: '+1555' });
    const dialing = await waitEvent('call.dialing');
    expect(sim.outboxSize).toBe(1);

    const gone = sim.waitFor('disconnected');
    sim.dropSocket();
    expect((await gone).willReconnect).toBe(true);
    sim.remoteAnswer(); // while offline: queued behind call.dialing
    expect(sim.outbox.map((e) => e.event)).toEqual(['call.dialing', 'call.active']);

    const mark = gw.messages.length;
    gw.autoAckEvents = true;
    await sim.waitFor('connected');
    await sim.waitFor((s) => s.outboxSize === 0);
    const after = gw.messages.slice(mark).map((m) => m.msg);
    expect(after.map((m) => m['type'])).toEqual(['hello', 'health', 'event', 'event']);
    expect(after[0]).toMatchObject({ call: { nativeCallId: dialing['nativeCallId'], callId: 'call-1', state: 'active' } });
    expect(after[2]).toEqual(dialing);
    expect(after[3]).toMatchObject({ event: 'call.active', callId: 'call-1' });
    expect(gw.storedEvents.map((e) => e['event'])).toEqual(['call.dialing', 'call.active']);
  });

  it('gives the callId of a late event.ack to queued events of the incoming call', async () => {
    const sim = phone();
    await sim.connect();
    gw.autoAckEvents = false;
    const ring = sim.ringIncoming('+1');
    const ringing = await waitEvent('call.ringing');
    sim.remoteHangup();
    await waitEvent('call.disconnected');
    expect(sim.outbox.every((e) => e.callId === undefined)).toBe(true);
    await sim.disconnect();
    gw.autoAckEvents = true;
    await sim.connect();
    expect(await ring).toBe('call-in-1');
    await sim.waitFor((s) => s.outboxSize === 0);
    expect(sim.events.map((e) => [e.event, e.callId])).toEqual([
      ['call.ringing', undefined],
      ['call.disconnected', 'call-in-1'],
    ]);
    expect(gw.messagesOf('event').filter((e) => e['eventId'] === ringing['eventId'])).toHaveLength(2);
  });

  it('endCallSilently forgets the call: the next hello has none', async () => {
    const sim = phone({ dial: { outcome: 'manual' } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await waitEvent('call.dialing');
    sim.endCallSilently();
    await sim.disconnect();
    const mark = gw.messages.length;
    await sim.connect();
    expect(gw.messages[mark]?.msg).toEqual({ type: 'hello', appVersion: '0.1.0-sim' });
    expect(eventsAt()).toHaveLength(1);
  });
});

describe('audio', () => {
  const frameCount = (): number => gw.current.frames.length;

  it('sends 640-byte frames at 50 per second carrying the tone', async () => {
    const sim = phone({ audio: { kind: 'tone', frequency: 440 }, dial: { outcome: 'answer', ringMs: 0 } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await gw.until(() => (frameCount() >= 26 ? true : undefined));
    const { frames, frameTimes } = gw.current;
    expect(frames.every((f) => f.length === FRAME_BYTES)).toBe(true);
    const span = (frameTimes[25] ?? 0) - (frameTimes[0] ?? 0);
    expect(span).toBeGreaterThan(25 * 20 * 0.85);
    expect(span).toBeLessThan(25 * 20 * 1.25);
    const pcm = Buffer.concat(frames.slice(0, 25)); // 0.5 s
    expect(zeroCrossings(pcm)).toBeGreaterThanOrEqual(438);
    expect(zeroCrossings(pcm)).toBeLessThanOrEqual(442);
    let peak = 0;
    for (let i = 0; i < pcm.length; i += 2) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i)));
    expect(peak / 32767).toBeCloseTo(0.3, 2);
    expect(sim.framesSent).toBeGreaterThanOrEqual(26);
  });

  it('sends no audio while the call is held, and none before it is active', async () => {
    const sim = phone({ audio: { kind: 'silence' }, dial: { outcome: 'manual' } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await waitEvent('call.dialing');
    expect(frameCount()).toBe(0);
    sim.remoteAnswer();
    await gw.until(() => (frameCount() >= 2 ? true : undefined));
    expect(gw.current.frames[0]?.equals(Buffer.alloc(FRAME_BYTES))).toBe(true);
    await gw.command('hold', 'call-1');
    const sent = sim.framesSent;
    await sim.waitFor((s) => s.currentCall?.state === 'held');
    await gw.command('dtmf', 'call-1', { digits: '1' }); // a round trip later: still no new frames
    expect(sim.framesSent).toBe(sent);
  });

  it('plays a 16 kHz mono WAV file in a loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-wav-'));
    try {
      const samples = 500; // not a multiple of a frame: the loop wraps inside frames
      const pcm = Buffer.alloc(samples * 2);
      for (let i = 0; i < samples; i++) pcm.writeInt16LE(i * 13 - 3000, i * 2);
      const path = join(dir, 'voice.wav');
      writeFileSync(path, encodeWav(pcm));
      const sim = phone({ audio: { kind: 'wav', path }, dial: { outcome: 'answer', ringMs: 0 } });
      await sim.connect();
      await gw.command('dial', 'call-1', { to: '+1555' });
      await gw.until(() => (frameCount() >= 5 ? true : undefined));
      const got = Buffer.concat(gw.current.frames.slice(0, 5));
      const want = Buffer.concat([pcm, pcm, pcm, pcm, pcm, pcm, pcm]).subarray(0, got.length);
      expect(got.equals(want)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a WAV file in another format', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-wav-'));
    try {
      const path = join(dir, 'cd.wav');
      writeFileSync(path, encodeWav(Buffer.alloc(400), { sampleRate: 44_100, channels: 2 }));
      expect(() => phone({ audio: { kind: 'wav', path } })).toThrow(/unsupported WAV format \(44100 Hz, 2 channel/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stamps frames with sequence numbers and send times', async () => {
    const sim = phone({ audio: { kind: 'tone', frequency: 440 }, stampFrames: true, dial: { outcome: 'answer', ringMs: 0 } });
    await sim.connect();
    const before = performance.timeOrigin + performance.now();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await gw.until(() => (frameCount() >= 3 ? true : undefined));
    const stamps = gw.current.frames.slice(0, 3).map((f) => readStamp(f));
    expect(stamps.map((s) => s?.seq)).toEqual([0, 1, 2]);
    for (const s of stamps) {
      expect(s?.sentAt).toBeGreaterThan(before);
      expect(s?.sentAt).toBeLessThan(performance.timeOrigin + performance.now());
    }
  });

  it('records the audio the gateway sends into the call', async () => {
    const sim = phone({ dial: { outcome: 'answer', ringMs: 0 } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await sim.waitFor((s) => s.currentCall?.state === 'active');
    const frames = [1, 2, 3].map((n) => Buffer.alloc(FRAME_BYTES, n));
    for (const f of frames) gw.current.ws.send(f);
    await sim.waitFor((s) => s.received.frames === 3);
    const stats = sim.received;
    expect(stats).toMatchObject({ frames: 3, bytes: 3 * FRAME_BYTES, strayFrames: 0, oddSizedFrames: 0 });
    expect(stats.arrivalTimes).toHaveLength(3);
    expect(sim.receivedAudio().equals(Buffer.concat(frames))).toBe(true);
    sim.resetReceived();
    expect(sim.received.frames).toBe(0);
    expect(sim.receivedAudio()).toHaveLength(0);
  });
});

describe('waitFor', () => {
  it('times out with a clear message', async () => {
    const sim = phone();
    await expect(sim.waitFor('connected', 20)).rejects.toThrow("waitFor('connected') timed out after 20 ms");
    await expect(sim.waitFor((s) => s.connected, 20)).rejects.toThrow('waitFor(predicate) timed out');
  });

  it('rejects pending waits on stop', async () => {
    const sim = phone();
    const waiting = sim.waitFor('call');
    await sim.stop();
    await expect(waiting).rejects.toThrow('stopped');
  });
});
