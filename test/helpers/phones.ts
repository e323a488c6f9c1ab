import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type WebSocket from 'ws';
import { PhoneSimulator, type EventMessage, type PhoneEventName, type PhoneSimulatorOptions } from '../../src/simulator/index.js';
import type { Call, CallEvent } from '../../src/calls/index.js';
import type { Device, Pairing } from '../../src/phones/index.js';
import type { WebhookDelivery as Delivery } from '../../src/webhooks/index.js';
import { until } from './waits.js';
import { startTestGateway, type ApiResponse, type Endpoint, type TestGateway } from './gateway.js';

/** Prints a response for assertion messages. */
export const show = (res: Pick<ApiResponse, 'status' | 'text'>): string => `${res.status} ${res.text.slice(0, 600)}`;

// ---- the REST shapes the tests read ---------------------------------------------------------

export type { Call, CallEvent, Delivery, Device, Pairing };
export type { Command } from '../../src/phones/index.js';

export interface ErrorBody {
  error: { code: string; message: string; issues?: Array<{ path: string; message: string }> };
}

// ---- waiting without sleeping ---------------------------------------------------------------

/** The condition helper (test/helpers/waits.ts), here too since most tests import from this file. */
export { until };

/** The call as GET /v1/calls/{callId} shows it. */
export async function getCall(gateway: Endpoint, callId: string): Promise<Call> {
  const res = await gateway.api<{ call: Call }>('GET', `/v1/calls/${callId}`);
  if (res.status !== 200) throw new Error(`GET call ${callId}: ${show(res)}`);
  return res.body.call;
}

export async function getEvents(gateway: Endpoint, callId: string): Promise<CallEvent[]> {
  const res = await gateway.api<{ events: CallEvent[] }>('GET', `/v1/calls/${callId}/events`);
  if (res.status !== 200) throw new Error(`GET events of ${callId}: ${show(res)}`);
  return res.body.events;
}

export async function getDevice(gateway: Endpoint, deviceId: string): Promise<Device> {
  const res = await gateway.api<{ device: Device }>('GET', `/v1/devices/${deviceId}`);
  if (res.status !== 200) throw new Error(`GET device ${deviceId}: ${show(res)}`);
  return res.body.device;
}

export async function getDeliveries(gateway: Endpoint, query = ''): Promise<Delivery[]> {
  const res = await gateway.api<{ deliveries: Delivery[] }>('GET', `/v1/webhook-deliveries${query}`);
  if (res.status !== 200) throw new Error(`GET webhook-deliveries${query}: ${show(res)}`);
  return res.body.deliveries;
}

/** Polls the call until it is in `state`. */
export const callInState = (gateway: Endpoint, callId: string, state: Call['state'], timeoutMs = 5000): Promise<Call> =>
  until(() => getCall(gateway, callId), (c) => c.state === state, { timeoutMs, what: `call ${callId} ${state}` });

/**
 * Waits until the simulator's first event named `event` created after index `from` of `sim.events`
 * has been acknowledged by the gateway (so the gateway has stored it), and returns it.
 */
export async function acked(sim: PhoneSimulator, event: PhoneEventName, from = 0, timeoutMs = 5000): Promise<EventMessage> {
  let found: EventMessage | undefined;
  await sim.waitFor((s) => {
    found = s.events.slice(from).find((e) => e.event === event);
    return found !== undefined && !s.outbox.some((o) => o.eventId === found?.eventId);
  }, timeoutMs);
  return found!;
}

// ---- phones ------------------------------------------------------------------------------------


export async function pairingCode(gateway: Endpoint): Promise<string> {
  const res = await gateway.api<Pairing>('POST', '/v1/pairing', { publicUrl: gateway.url });
  if (res.status !== 200) throw new Error(`POST /v1/pairing: ${show(res)}`);
  return res.body.code;
}

/** Pairs a phone through REST and returns its credentials. */
export async function pairCredentials(gateway: Endpoint, name = 'Raw phone'): Promise<{ deviceId: string; deviceToken: string }> {
  const code = await pairingCode(gateway);
  const res = await gateway.api<{ deviceId: string; deviceToken: string }>('POST', '/v1/phone/pair', { code, name }, { key: null });
  if (res.status !== 200) throw new Error(`POST /v1/phone/pair: ${show(res)}`);
  return res.body;
}

/**
 * A PhoneSimulator paired with the gateway through a fresh pairing code and, unless
 * `connect: false`, connected (resolved after `welcome`). Silent audio-less by default.
 */
export async function pairedPhone(gateway: Endpoint, options: Partial<PhoneSimulatorOptions> & { connect?: boolean } = {}): Promise<PhoneSimulator> {
  const { connect = true, ...rest } = options;
  const sim = new PhoneSimulator({
    gatewayUrl: gateway.url,
    name: 'Test phone',
    audio: { kind: 'none' },
    reconnectDelayMs: { initial: 30, max: 200 },
    dial: { outcome: 'answer', ringMs: 30 },
    ...rest,
  });
  await sim.pair(await pairingCode(gateway));
  if (connect) await sim.connect();
  return sim;
}

/** The device token a simulator paired with (it keeps it protected). */
export function deviceTokenOf(sim: PhoneSimulator): string {
  const credentials = (sim as unknown as { credentials: { deviceToken: string } | null }).credentials;
  if (!credentials) throw new Error('the simulator is not paired');
  return credentials.deviceToken;
}

// ---- the fakes a test drives by hand (test/fakes) -------------------------------------------------

import { RawPhone } from '../fakes/raw-phone.js';
import { WebhookReceiver } from '../fakes/webhook-receiver.js';

export { RawPhone, openSocket, openPhoneSocket, phoneEvent, phoneSocketUrl, type GatewayMessage, type UpgradeOutcome } from '../fakes/raw-phone.js';
export { WebhookReceiver, type ReceivedHook, type WebhookPayload } from '../fakes/webhook-receiver.js';

// ---- files -----------------------------------------------------------------------------------

export { filesContaining, storedContaining } from './stored.js';

// ---- one place that stops what a test started -------------------------------------------------

export interface Scope {
  gateway(options?: Parameters<typeof startTestGateway>[0]): Promise<TestGateway>;
  phone(gateway: Endpoint, options?: Parameters<typeof pairedPhone>[1]): Promise<PhoneSimulator>;
  /** A simulator made by the test itself, stopped at the end. */
  track<T extends { stop(): Promise<void> } | { close(): Promise<void> }>(thing: T): T;
  raw(gateway: Endpoint, deviceToken: string, hello?: Record<string, unknown> | false, options?: WebSocket.ClientOptions): Promise<RawPhone>;
  receiver(pathname?: string): Promise<WebhookReceiver>;
  /** A temporary directory removed at the end. */
  tempDir(): string;
  defer(fn: () => Promise<void> | void): void;
}

/**
 * Registers an afterEach that stops, newest first, everything started through the scope during the
 * test: phones and receivers before the gateways they talk to.
 */
export function testScope(): Scope {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length) throw errors[0];
  });
  const track = <T extends { stop(): Promise<void> } | { close(): Promise<void> }>(thing: T): T => {
    cleanups.push(() => ('stop' in thing ? thing.stop() : thing.close()));
    return thing;
  };
  return {
    async gateway(options) {
      const g = await startTestGateway(options);
      cleanups.push(() => g.stop());
      return g;
    },
    async phone(gateway, options) {
      const sim = new PhoneSimulatorHolder();
      cleanups.push(() => sim.stop());
      sim.sim = await pairedPhone(gateway, options);
      return sim.sim;
    },
    track,
    async raw(gateway, deviceToken, hello, options) {
      const phone = await RawPhone.connect(gateway, deviceToken, hello, options);
      cleanups.push(() => phone.close());
      return phone;
    },
    async receiver(pathname) {
      const r = await WebhookReceiver.start(pathname);
      cleanups.push(() => r.close());
      return r;
    },
    tempDir() {
      const dir = mkdtempSync(path.join(tmpdir(), 'vg-calls-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
    defer(fn) {
      cleanups.push(fn);
    },
  };
}

/** Lets the scope stop a simulator whose pairing is still under way when the test fails. */
class PhoneSimulatorHolder {
  sim: PhoneSimulator | undefined;
  async stop(): Promise<void> {
    await this.sim?.stop();
  }
}
