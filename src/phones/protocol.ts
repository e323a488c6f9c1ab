import { z } from 'zod';
import { EVENT_NAMES, type CommandAction } from '../calls/state.js';
import { JSON_TOO_LARGE, fitsJson } from '../json-size.js';
import { text, textWithLines, wellFormedJson } from '../text.js';
import { DiagnosticsReport } from './diagnostics.js';
import { SimList } from './sims.js';

/** Messages of phone-protocol.md, version 1, as the phone sends them. */

/**
 * Extension 1.2 (docs/phone-protocol.md): what the phone's audio helper can do with a call's
 * audio. `method` is a short name, not an enum, so that a phone with a newer method does not
 * have its whole health report refused by an older gateway.
 */
export const AudioCapabilities = z
  .object({
    capture: z.boolean().describe('the phone hears the remote party and sends its voice'),
    inject: z.boolean().describe('the phone can speak into the call; false: listen only, audio sent to the call is discarded on the phone'),
    method: z
      .string()
      .regex(/^[a-z0-9_]{1,32}$/)
      .describe('how: call_interception (Android 13+), voice_downlink (Android 11+, listen only), none; simulated for test phones'),
    sampleRate: z.number().int().min(8000).max(48000).optional().describe('the rate the phone captures at before resampling to 16 kHz; present when capture is true'),
  })
  .describe('what the audio helper said it can do the last time it ran');
export type AudioCapabilities = z.infer<typeof AudioCapabilities>;

export const HealthReport = z.object({
  battery: z.number().int().min(0).max(100).optional(),
  charging: z.boolean().optional(),
  network: z.enum(['wifi', 'cellular', 'ethernet', 'other', 'none']).optional(),
  signal: z.number().int().min(0).max(4).optional(),
  carrier: text().max(100).optional(),
  audio: z.enum(['running', 'stopped', 'pairing_required']).optional(),
  audioCapabilities: AudioCapabilities.optional(),
  /** Extension 1.4: the phone's SIMs; its presence announces that the phone honours `sim` in `dial`. */
  sims: SimList.optional(),
  appVersion: text().max(50).optional(),
  android: text().max(50).optional(),
  model: text().max(100).optional(),
  reportedAt: z.iso.datetime({ offset: true }).optional(),
});
export type HealthReport = z.infer<typeof HealthReport>;

const Hello = z.object({
  type: z.literal('hello'),
  appVersion: text().max(50).optional(),
  call: z
    .object({ nativeCallId: text().min(1).max(200), callId: text().max(64).optional(), state: text().max(20).optional() })
    .nullable()
    .optional(),
});

const Health = z.object({ type: z.literal('health'), health: HealthReport });

const Ack = z.object({
  type: z.literal('ack'),
  commandId: text().min(1).max(64),
  ok: z.boolean(),
  error: z.object({ code: text().min(1).max(64), message: textWithLines().max(1000).optional() }).optional(),
});

/**
 * The phone names its events (UUIDs, in the app and the simulator); the name becomes the webhook-id
 * header of every delivery, so it is held to characters any header, URL or log carries as they are.
 */
export const EVENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const Event = z.object({
  type: z.literal('event'),
  eventId: z.string().regex(EVENT_ID, 'must be 1 to 64 letters, digits or . _ : - (a UUID, say)'),
  event: z.enum(EVENT_NAMES),
  nativeCallId: text().min(1).max(200),
  callId: text().max(64).nullable().optional(),
  direction: z.enum(['incoming', 'outgoing']).optional(),
  remoteNumber: text().max(64).optional(),
  occurredAt: z.iso.datetime({ offset: true }),
  payload: z.record(z.string(), z.unknown()).check(wellFormedJson()).refine((v) => fitsJson(v), JSON_TOO_LARGE).default({}),
});

/** Extension 1.1: keypad digits the remote party pressed, detected by the phone. */
const Dtmf = z.object({
  type: z.literal('dtmf'),
  nativeCallId: text().min(1).max(200),
  callId: text().max(64).nullable().optional(),
  digits: z.string().min(1).max(64).regex(/^[0-9*#A-D]+$/, 'must contain only 0-9, *, # and A-D'),
});

/**
 * Extension 1.3: the phone's self-test report. Not acknowledged; the gateway keeps the latest per
 * phone. `version` is the report's format: a later incompatible one is a new extension.
 */
const Diagnostics = z.object({ type: z.literal('diagnostics'), version: z.literal(1), report: DiagnosticsReport });

export const PhoneMessage = z.discriminatedUnion('type', [Hello, Health, Ack, Event, Dtmf, Diagnostics]);
export type PhoneMessage = z.infer<typeof PhoneMessage>;
export type HelloMessage = z.infer<typeof Hello>;
export type PhoneEvent = z.infer<typeof Event>;
export type AckMessage = z.infer<typeof Ack>;
export type DtmfMessage = z.infer<typeof Dtmf>;
export type DiagnosticsMessage = z.infer<typeof Diagnostics>;

export const KNOWN_TYPES = new Set(['hello', 'health', 'ack', 'event', 'dtmf', 'diagnostics']);

export interface Command {
  type: 'command';
  commandId: string;
  callId: string;
  action: CommandAction;
  payload: Record<string, unknown>;
}

export const CLOSE_REPLACED = 4000;
export const CLOSE_REVOKED = 4001;
