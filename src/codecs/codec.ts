import { illFormedPath } from '../text.js';
import type { StreamFormat } from './formats.js';

export type { StreamFormat };

/** The call a stream carries, as its start message names it. */
export interface StartInfo {
  callId: string;
  direction: string;
  remoteNumber: string;
  deviceId: string;
  /** The stream's `parameters`, merged into the start message (agent streams only). */
  parameters?: Record<string, string> | undefined;
}

/** One message from the peer, decoded. What to do with an `ignored` one is the socket's choice. */
export type Decoded =
  /** Audio to play into the call: 16 kHz mono s16le, any length (even odd). */
  | { kind: 'audio'; pcm: Buffer }
  | { kind: 'mark'; name: string }
  | { kind: 'clear' }
  /** The peer asks the gateway to close the stream (jambonz's `disconnect`): it has hung up. */
  | { kind: 'close' }
  /** Not a message of the format. `hint` when it looks like the other format. */
  | { kind: 'ignored'; why: string; hint?: string };

/**
 * One wire format, both ways, for one stream. Pure: it only turns messages into values and values
 * into messages, keeping the little state a format needs (Twilio's counters, the 8 to 16 kHz
 * interpolation); sockets, play-out and logging belong to its caller.
 */
export interface AudioCodec {
  readonly format: StreamFormat;
  /** About one second of what `audio` produces, in bytes: the back-pressure bound of the socket. */
  readonly bytesPerSecond: number;
  /** The messages that open the stream, in order. */
  start(info: StartInfo): string[];
  /** One 640-byte frame of the remote party: binary (a Buffer) or text. */
  audio(frame: Buffer): Buffer | string;
  /** A mark the peer sent, told back once its audio has played (or `cleared`: dropped by `clear`); null where the format has no marks. */
  markPlayed(name: string, cleared: boolean): string | null;
  /** A keypad digit of the remote party; null where the format has no such message. */
  dtmf(digit: string): string | null;
  stop(): string;
  decode(data: Buffer, isBinary: boolean): Decoded;
}

/** Parses a text message as a JSON object (arrays included, as before); a reason when it is not one. */
export function parseObject(data: Buffer): Record<string, unknown> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  if (typeof parsed !== 'object' || parsed === null) return 'not a JSON object';
  // A lone surrogate (`"\\ud800"`) would reach a mark name told back, or the log, as what it is not.
  const illFormed = illFormedPath(parsed);
  if (illFormed) return `not well-formed Unicode at ${illFormed.join('.')} (half of a surrogate pair)`;
  return parsed as Record<string, unknown>;
}
