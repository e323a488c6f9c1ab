import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../test/fakes/fake-gateway.js';
import { gw, phone, useFakeGateway } from '../../test/helpers/fake-gateway-scope.js';
import { GatewayRequestError } from './index.js';

/** PhoneSimulator against a fake gateway: pairing, the socket and its reconnects, waitFor. */
useFakeGateway();

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
