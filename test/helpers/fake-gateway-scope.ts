import { afterEach, beforeEach } from 'vitest';
import { PhoneSimulator, type PhoneSimulatorOptions } from '../../src/simulator/index.js';
import { FakeGateway, type Json } from '../fakes/fake-gateway.js';

/**
 * The simulator's tests (src/simulator/*.test.ts) against a fresh fake gateway per test: call
 * `useFakeGateway()` once at the top of a test file, then use `gw` (a live binding, the current
 * test's gateway) and `phone()`, whose simulators are stopped after each test.
 */
export let gw: FakeGateway;
const sims: PhoneSimulator[] = [];

export function useFakeGateway(): void {
  beforeEach(async () => {
    gw = await FakeGateway.start();
  });
  afterEach(async () => {
    await Promise.all(sims.splice(0).map((s) => s.stop()));
    await gw.close();
  });
}

/** A simulator with a device of the fake gateway, silent, reconnecting quickly; not yet connected. */
export function phone(opts: Partial<PhoneSimulatorOptions> = {}): PhoneSimulator {
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

/** The `event` messages the gateway received from index `from` of its messages on. */
export const eventsAt = (from = 0): Json[] => gw.messages.slice(from).map((m) => m.msg).filter((m) => m['type'] === 'event');

/** The first `event` message named `name` from index `after` on, now or when it arrives. */
export const waitEvent = (name: string, after = 0): Promise<Json> => gw.waitForMessage((m) => m['type'] === 'event' && m['event'] === name, { after });
