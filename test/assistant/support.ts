import { startFakeRealtime, type FakeClientEvent, type FakeRealtime, type FakeRealtimeOptions } from '../fakes/realtime-server.js';
import { callInState, until, show, testScope, type Scope } from '../helpers/phones.js';
import type { Endpoint, TestGateway } from '../helpers/gateway.js';
import type { PhoneSimulator } from '../../src/simulator/index.js';

export const KEY = 'sk-assistant-test-0123456789SECRETKEY';

export interface AssistantCallInfo {
  requested: boolean;
  status: 'off' | 'waiting' | 'connecting' | 'live' | 'ended' | 'error';
  error?: string;
  transcript: Array<{ role: 'caller' | 'agent'; text: string; at: string }>;
  message?: {
    callId: string;
    remoteNumber: string;
    callerName: string;
    reason: string;
    callbackNumber: string;
    urgency: string;
    takenAt: string;
  };
}

export interface Rig {
  fake: FakeRealtime;
  gateway: TestGateway;
  phone: PhoneSimulator;
}

/** A fake Realtime server, a gateway pointed at it with the key in its environment, and a phone that sends a 440 Hz tone. */
export async function rig(
  scope: Scope,
  options: {
    key?: string | null;
    fake?: FakeRealtimeOptions;
    env?: Record<string, string>;
    responseTimeoutMs?: number;
    /** How often the gateway pings the model (and agents), and how long it waits for the pong. */
    ping?: { audioPingIntervalMs: number; pongTimeoutMs: number };
    captureLogs?: boolean;
    toneHz?: number;
  } = {},
): Promise<Rig> {
  const fake = await startFakeRealtime({ requireKey: KEY, ...options.fake });
  scope.defer(() => fake.close());
  const key = options.key === undefined ? KEY : options.key;
  const gateway = await scope.gateway({
    env: { ASSISTANT_REALTIME_URL: fake.url, ...(key ? { ASSISTANT_API_KEY: key } : {}), ...options.env },
    timings: { assistantResponseTimeoutMs: options.responseTimeoutMs ?? 3000, ...options.ping },
    ...(options.captureLogs ? { captureLogs: true } : {}),
  });
  const phone = await scope.phone(gateway, { audio: { kind: 'tone', frequency: options.toneHz ?? 440, amplitude: 0.3 } });
  return { fake, gateway, phone };
}

export async function agentInfo(gateway: Endpoint, callId: string): Promise<AssistantCallInfo> {
  const res = await gateway.api<AssistantCallInfo>('GET', `/v1/calls/${callId}/agent`);
  if (res.status !== 200) throw new Error(`GET agent: ${show(res)}`);
  return res.body;
}

/** Rings the phone, hands the call to the assistant and waits until it is live and has asked for the greeting. */
export async function takenCall(r: Rig, from = '+4915100000001'): Promise<string> {
  const callId = await r.phone.ringIncoming(from);
  const res = await r.gateway.api<AssistantCallInfo>('POST', `/v1/calls/${callId}/agent`);
  if (res.status !== 202) throw new Error(`POST agent: ${show(res)}`);
  await callInState(r.gateway, callId, 'active');
  await r.fake.waitForEvent('response.create', undefined, 5000);
  return callId;
}

export function tone(rate: number, hz: number, ms: number, amplitude = 8000): Buffer {
  const n = Math.round((rate * ms) / 1000);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)), i * 2);
  return b;
}

/** Frequency estimated from zero crossings, skipping the first `skip` samples. */
export function frequencyOf(pcm: Buffer, rate: number, skip = 0): number {
  const n = pcm.length >> 1;
  let crossings = 0;
  for (let i = skip + 1; i < n; i++) {
    if (pcm.readInt16LE((i - 1) * 2) < 0 !== pcm.readInt16LE(i * 2) < 0) crossings++;
  }
  return crossings / 2 / ((n - skip) / rate);
}

export const pcmOf = (event: FakeClientEvent): Buffer => Buffer.from(String(event.audio), 'base64');

export { testScope };

/** The client events of the model's `n`-th connection (0-based) once one of `type` is among them. */
export async function eventsOf(fake: FakeRealtime, n: number, type: string): Promise<FakeClientEvent[]> {
  return until(
    async () => fake.received[n] ?? [],
    (events) => events.some((e) => e.type === type),
    { what: `${type} on the model's connection #${n}` },
  );
}
