import { z } from 'zod';
import { EVENT_NAMES, type CallState, type CommandAction, type Direction } from '../calls/state.js';

/** Wire types of phone-protocol.md (version 1), seen from the phone. */

/** The spec's event names: the one vocabulary the phone and the gateway share (src/calls/state.ts is pure). */
export const PHONE_EVENT_NAMES = EVENT_NAMES;
export type PhoneEventName = (typeof PHONE_EVENT_NAMES)[number];

/**
 * A call's state as the phone holds it (the `hello`'s call, the simulator's `currentCall`): the
 * gateway's states but `queued`, which is the gateway's own until the phone takes the dial. A call
 * of the simulator leaves `currentCall` once it is final.
 */
export type PhoneCallState = Exclude<CallState, 'queued'>;
export type DisconnectCause = 'local' | 'remote' | 'busy' | 'rejected' | 'missed' | 'error' | 'other';
/** The gateway's words for a call's direction and its commands' actions (src/calls/state.ts). */
export type { CommandAction, Direction };

/** The Device `health` object of the spec. */
export interface Health {
  battery: number;
  charging: boolean;
  network: 'wifi' | 'cellular' | 'ethernet' | 'other' | 'none';
  signal: number;
  carrier: string;
  audio: 'running' | 'stopped' | 'pairing_required';
  /** Extension 1.2: what the audio helper can do; the simulator sends it only when told to. */
  audioCapabilities?: { capture: boolean; inject: boolean; method: string; sampleRate?: number };
  /** Extension 1.4: the phone's SIMs; the simulator sends them only when told to, and then honours `sim` in `dial`. */
  sims?: SimInfo[];
  appVersion: string;
  android: string;
  model: string;
  reportedAt: string;
}

/** One SIM of `health.sims` (extension 1.4 of docs/phone-protocol.md). */
export interface SimInfo {
  slot: number;
  carrier?: string;
  number?: string;
  defaultForCalls: boolean;
  usable: boolean;
}

export interface HelloMessage {
  type: 'hello';
  appVersion: string;
  call?: { nativeCallId: string; callId?: string; state: PhoneCallState };
}

export interface HealthMessage {
  type: 'health';
  health: Health;
}

export interface AckMessage {
  type: 'ack';
  commandId: string;
  ok: boolean;
  error?: { code: string; message: string };
}

export interface EventMessage {
  type: 'event';
  eventId: string;
  event: PhoneEventName;
  nativeCallId: string;
  callId?: string;
  direction?: Direction;
  remoteNumber?: string;
  occurredAt: string;
  payload: Record<string, unknown>;
}

/** Protocol extension 1.1: keypad digits the remote party pressed. */
export interface DtmfMessage {
  type: 'dtmf';
  nativeCallId: string;
  callId?: string;
  digits: string;
}

/** Protocol extension 1.3: the phone's self-test report (any JSON object; the gateway checks the known fields). */
export interface DiagnosticsMessage {
  type: 'diagnostics';
  version: 1;
  report: Record<string, unknown>;
}

export type PhoneMessage = HelloMessage | HealthMessage | AckMessage | EventMessage | DtmfMessage | DiagnosticsMessage;

const welcomeSchema = z.object({
  type: z.literal('welcome'),
  deviceId: z.string(),
  serverTime: z.string(),
});
const commandSchema = z.object({
  type: z.literal('command'),
  commandId: z.string().min(1),
  callId: z.string(),
  action: z.string(),
  payload: z.record(z.string(), z.unknown()).default({}),
});
const eventAckSchema = z.object({
  type: z.literal('event.ack'),
  eventId: z.string(),
  callId: z.string().optional(),
});
const errorSchema = z.object({
  type: z.literal('error'),
  code: z.string(),
  message: z.string(),
});

export const gatewayMessageSchema = z.discriminatedUnion('type', [
  welcomeSchema,
  commandSchema,
  eventAckSchema,
  errorSchema,
]);

export type WelcomeMessage = z.infer<typeof welcomeSchema>;
export type CommandMessage = z.infer<typeof commandSchema>;
export type EventAckMessage = z.infer<typeof eventAckSchema>;
export type GatewayErrorMessage = z.infer<typeof errorSchema>;
export type GatewayMessage = z.infer<typeof gatewayMessageSchema>;

/** Parses one text frame from the gateway; returns a description of the problem on failure. */
export function parseGatewayMessage(text: string): { ok: true; message: GatewayMessage } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: `not JSON: ${text.slice(0, 200)}` };
  }
  const parsed = gatewayMessageSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { ok: false, problem: `invalid message (${issues}): ${text.slice(0, 200)}` };
  }
  return { ok: true, message: parsed.data };
}
