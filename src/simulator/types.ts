import type { AudioSpec } from './audio-source.js';
import type { SimCall } from './commands.js';
import type { PhoneCredentials } from './gateway-http.js';
import type {
  AckMessage,
  CommandMessage,
  EventAckMessage,
  EventMessage,
  GatewayErrorMessage,
  Health,
  PhoneEventName,
} from './protocol.js';

/** How a `dial` ends after `ringMs`; `manual` stays dialing until remoteAnswer()/remoteBusy(). */
export type DialOutcome = 'answer' | 'busy' | 'no-answer' | 'failed' | 'manual';

/** `ok`: act like a phone; `silent`: neither ack nor act; a refusal: ack every command with it. */
export type AckBehaviour = 'ok' | 'silent' | { ok: false; code: string; message: string };

/** The subset of pino's Logger the simulator uses; a pino logger fits. */
export interface SimulatorLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface PhoneSimulatorOptions {
  /** `http(s)://host:port` of the gateway (a path prefix is kept). */
  gatewayUrl: string;
  name?: string;
  model?: string;
  android?: string;
  appVersion?: string;
  credentials?: PhoneCredentials;
  dial?: { outcome: DialOutcome; ringMs?: number; failReason?: string };
  audio?: AudioSpec;
  /** Writes a sequence number and send time into each frame sent (see readStamp). */
  stampFrames?: boolean;
  health?: Partial<Omit<Health, 'reportedAt'>>;
  /** Default 60 000 (phone-protocol.md). */
  healthIntervalMs?: number;
  reconnect?: boolean;
  /** Backoff of reconnects: initial delay doubling up to max, ±20 % jitter. Default 250 ms to 10 s. */
  reconnectDelayMs?: { initial?: number; max?: number };
  /** The phone pings the gateway this often and drops a socket whose pong takes over `pongTimeoutMs`. Default 20 000 and 10 000. */
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
  /** How long connect() waits for the upgrade and `welcome`. Default 10 000. */
  welcomeTimeoutMs?: number;
  ackBehaviour?: AckBehaviour;
  /** How much received audio receivedAudio() keeps. Default 60 000. */
  receiveCapMs?: number;
  logger?: SimulatorLogger;
}

export type SimCallChange = SimCall & { event: PhoneEventName; payload: Record<string, unknown> };

/** Payloads of the simulator's events (each listener gets one argument). */
export interface PhoneSimulatorEvents {
  connected: { deviceId: string; serverTime: string };
  disconnected: { code: number; reason: string; willReconnect: boolean };
  /** A command arrived (before the simulator acts on it). */
  command: CommandMessage;
  /** The simulator sent an ack. */
  ack: AckMessage;
  /** The simulator created a protocol event (sent now, or when the socket is back). */
  event: EventMessage;
  'event.ack': EventAckMessage;
  /** An `error` message of the gateway. Emitted only while someone listens (an unheard 'error' would throw). */
  error: GatewayErrorMessage;
  /** The call changed state; after a final state the call leaves `currentCall`. */
  call: SimCallChange;
  /** A binary frame from the gateway. */
  audio: Buffer;
  dtmf: { digits: string; callId: string | undefined };
  /** A health report was sent. */
  health: Health;
  /** Token revoked: close code 4001, or a 401 on reconnect. The simulator stays offline. */
  revoked: { closeCode?: number; status?: number; reason: string };
  /** A newer socket of this phone took over (close code 4000). The simulator stays offline. */
  replaced: { closeCode: number; reason: string };
  /** The gateway broke phone-protocol.md (bad message, message out of order...). */
  'protocol-violation': string;
}

export type PhoneSimulatorEventName = keyof PhoneSimulatorEvents;
